"""Celery beat's sweeps, declared in code: django-celery-beat's DatabaseScheduler copies them into its tables
at start (``CELERY_BEAT_SCHEDULE``). Each interval is an environment variable (docs/configuration.md)."""

from __future__ import annotations

from typing import Any

from config.env import env_float


def schedule() -> dict[str, dict[str, Any]]:
    """The sweeps and their intervals (seconds), read from the environment when the settings load."""
    return {
        "outbox-sweep": {
            "task": "ingestion.outbox_sweep",
            "schedule": env_float("MEMHQ_OUTBOX_SWEEP_EVERY_S", 10.0),
        },
        "webhooks-sweep": {
            "task": "webhooks.sweep",
            "schedule": env_float("MEMHQ_WEBHOOKS_SWEEP_EVERY_S", 5.0),
        },
        "threads-inactivity-sweep": {
            "task": "threads.inactivity_sweep",
            "schedule": env_float("MEMHQ_THREADS_SWEEP_EVERY_S", 5.0),
        },
        "consolidation-sweep": {
            "task": "memhq.consolidation_sweep",
            "schedule": env_float("MEMHQ_CONSOLIDATION_EVERY_S", 900.0),
        },
    }
