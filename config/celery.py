"""The Celery application: configuration comes from Django settings (``CELERY_*``)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("memhq")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["ingestion", "memhq"])
app.autodiscover_tasks(["memhq"], related_name="thread_tasks")  # working memory (threads)
app.autodiscover_tasks(["memhq"], related_name="consolidation_tasks")  # deep consolidation


def _install_heartbeat() -> None:
    from ingestion.heartbeat import Heartbeat

    app.steps["consumer"].add(Heartbeat)


_install_heartbeat()  # workers announce themselves for /healthz (ingestion/heartbeat.py)
