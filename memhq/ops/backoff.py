"""How long a task waits before its next retry: exponential with "equal jitter" (half of the step fixed,
half random), so the retries of many tasks failing together spread out, and the whole series still spans a
known minimum. With full jitter (what Celery's helper offers) a waiting time can be 0: five retries of a
phase were spent within the first 5 s of a database restart and the episodes were failed
(tests/faults/test_database_under_load.py). Here ``MEMHQ_TASK_MAX_RETRIES`` (5) retries with a factor of 2 s
span at least 1 + 2 + 4 + 8 + 16 = 31 s."""

from __future__ import annotations

import random

from django.conf import settings

FACTOR_S = 2.0


def retry_countdown(retries: int, factor_s: float = FACTOR_S) -> float:
    """Seconds before retry number ``retries + 1``: between half and all of ``factor_s × 2^retries``,
    capped at ``MEMHQ_TASK_RETRY_BACKOFF_MAX_S``."""
    step = min(float(settings.MEMHQ_TASK_RETRY_BACKOFF_MAX_S), factor_s * 2**retries)
    return round(step / 2 + random.uniform(0, step / 2), 2)
