"""The Celery application: configuration comes from Django settings (``CELERY_*``)."""

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun
from django.db import close_old_connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("memhq")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["ingestion", "memhq"])
app.autodiscover_tasks(["memhq"], related_name="thread_tasks")  # working memory (threads)
app.autodiscover_tasks(["memhq"], related_name="consolidation_tasks")  # deep consolidation


def publish(name: str, *args: object) -> None:
    """Publish the task ``name`` with ``args``, by name: product code never imports a task module (tasks
    import services, never the other way round), and the routes of config/queues.py pick the queue. No
    result is kept (none of MemHQ's tasks returns one to a caller); raises when the broker is unreachable.
    With ``task_always_eager`` (tests) the task runs here, as ``delay`` would (``send_task`` ignores it)."""
    if app.conf.task_always_eager:
        app.tasks[name].apply(args=list(args), throw=app.conf.task_eager_propagates)
        return
    app.send_task(name, args=list(args), ignore_result=True)


@task_prerun.connect
@task_postrun.connect
def _recycle_connections(sender: Any = None, **_: Any) -> None:
    """Around each task, what Django does around each request: close a connection that errored, outlived
    ``CONN_MAX_AGE`` or left autocommit, and health-check the others on first use (``CONN_HEALTH_CHECKS``).
    Celery's own fixup would close every connection twice per task (``CELERY_DB_REUSE_MAX`` turns that off):
    a new PostgreSQL backend for each of an episode's seven phases, ~62 connections/s at 9 episodes/s.
    An eager task (tests) runs inside its caller's transaction and is left alone, as the fixup leaves it."""
    if not getattr(getattr(sender, "request", None), "is_eager", False):
        close_old_connections()


def _install_consumer_steps() -> None:
    from ingestion.consumer_watchdog import ConsumerWatchdog
    from ingestion.heartbeat import Heartbeat

    app.steps["consumer"].add(Heartbeat)
    app.steps["consumer"].add(ConsumerWatchdog)


# Workers announce themselves for /healthz (ingestion/heartbeat.py) and reconnect a consumer that stopped
# taking the messages waiting for it (ingestion/consumer_watchdog.py).
_install_consumer_steps()
