"""Logging: optional JSON lines (``LOG_FORMAT=json``), the episode id on every line of its chain, and quiet
beat sweeps.

- ``EpisodeContext`` (a filter on the console handler) adds ``episode_id`` to every record logged while a
  phase task of the chain (``ingestion.*`` with the episode id as first argument) runs in this process:
  Celery's own "succeeded" lines included, and its "received" lines (from the task's first argument).
  Plain lines end with ``[episode=<id>]``.
- ``JsonFormatter``: one JSON object per line (time, level, logger, message, episode_id, exception).
- ``QuietSweeps``: the beat sweeps run every few seconds; their "Sending due task", "received" and — when the
  sweep did nothing (returned 0/None) — "succeeded" lines are logged at DEBUG instead of INFO, so a quiet
  system's log shows the start-up banner and real work only.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
from datetime import UTC, datetime
from typing import Any

from celery.signals import task_postrun, task_prerun

episode_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("memhq_episode", default=None)
CHAIN_PREFIX = "ingestion."
NOT_EPISODE_TASKS = frozenset({"ingestion.outbox_sweep"})
NOTHING_DONE = frozenset({"0", "None", "", "[]", "{}"})
SENDING_DUE = "Scheduler: Sending due task"
UUID_ARGUMENT = re.compile(r"^[\[(]'([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})'")


def _received_episode(record: logging.LogRecord) -> str | None:
    """Celery's "received" line comes before the task runs: its episode id is the first argument."""
    data = getattr(record, "data", None)
    if not isinstance(data, dict) or not str(data.get("name", "")).startswith(CHAIN_PREFIX):
        return None
    if data.get("name") in NOT_EPISODE_TASKS:
        return None
    found = UUID_ARGUMENT.match(str(data.get("args", "")))
    return found.group(1) if found else None


class EpisodeContext(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        episode_id = episode_var.get() or _received_episode(record)
        record.episode_id = episode_id
        record.episode = f" [episode={episode_id}]" if episode_id else ""
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        episode_id = getattr(record, "episode_id", None)
        if episode_id:
            line["episode_id"] = episode_id
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def _sweep_tasks() -> frozenset[str]:
    from django.conf import settings

    return frozenset(str(entry["task"]) for entry in settings.CELERY_BEAT_SCHEDULE.values())


class QuietSweeps(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO or not self._routine(record):
            return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger().isEnabledFor(logging.DEBUG)

    @staticmethod
    def _routine(record: logging.LogRecord) -> bool:
        data = getattr(record, "data", None)
        if isinstance(data, dict) and "name" in data:  # celery's received / succeeded lines
            if data["name"] not in _sweep_tasks():
                return False
            return "return_value" not in data or str(data["return_value"]) in NOTHING_DONE
        if record.name == "celery.beat" and str(record.msg).startswith(SENDING_DUE):
            args = record.args if isinstance(record.args, tuple) else ()
            return len(args) == 2 and str(args[1]) in _sweep_tasks()
        return False


@task_prerun.connect
def _enter_episode(sender: Any = None, args: Any = None, **_: Any) -> None:
    name = getattr(sender, "name", "") or ""
    if name.startswith(CHAIN_PREFIX) and name not in NOT_EPISODE_TASKS and args:
        episode_var.set(str(args[0]))


@task_postrun.connect
def _leave_episode(**_: Any) -> None:
    episode_var.set(None)
