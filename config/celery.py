"""The Celery application: configuration comes from Django settings (``CELERY_*``)."""

import os

from celery import Celery

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


def _install_consumer_steps() -> None:
    from ingestion.consumer_watchdog import ConsumerWatchdog
    from ingestion.heartbeat import Heartbeat

    app.steps["consumer"].add(Heartbeat)
    app.steps["consumer"].add(ConsumerWatchdog)


# Workers announce themselves for /healthz (ingestion/heartbeat.py) and reconnect a consumer that stopped
# taking the messages waiting for it (ingestion/consumer_watchdog.py).
_install_consumer_steps()
