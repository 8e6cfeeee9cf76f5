"""``LOGGING`` (memhq/ops/logs.py): plain lines or one JSON object per line, the episode id on every line of
its chain, the beat sweeps' routine lines at DEBUG."""

from __future__ import annotations

from typing import Any


def dict_config(log_format: str, level: str) -> dict[str, Any]:
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "episode": {"()": "memhq.ops.logs.EpisodeContext"},
            "quiet_sweeps": {"()": "memhq.ops.logs.QuietSweeps"},
        },
        "formatters": {
            "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s%(episode)s"},
            "json": {"()": "memhq.ops.logs.JsonFormatter"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": log_format,
                "filters": ["quiet_sweeps", "episode"],
            }
        },
        "root": {"handlers": ["console"], "level": level},
    }
