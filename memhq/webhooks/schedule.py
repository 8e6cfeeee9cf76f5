"""When to try a delivery again.

The first attempt is immediate; after the n-th failed attempt the next one waits
``MEMHQ_WEBHOOKS_RETRY_SCHEDULE_S[n-1]`` seconds (Standard Webhooks: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h,
20 h, 24 h), spread by ±``MEMHQ_WEBHOOKS_RETRY_JITTER`` so endpoints that come back are not hit by a
thundering herd. A ``Retry-After`` answer (seconds or an HTTP date, capped at
``MEMHQ_WEBHOOKS_RETRY_AFTER_MAX_S``) pushes the next attempt later, never earlier. When the schedule has
run out the delivery is dead.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime

from django.conf import settings


def retry_schedule() -> list[float]:
    return [float(delay) for delay in settings.MEMHQ_WEBHOOKS_RETRY_SCHEDULE_S]


def max_attempts() -> int:
    return len(retry_schedule()) + 1


def parse_retry_after(value: str | None, *, now: datetime) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delta-seconds or HTTP date), capped; None if absent or
    unreadable."""
    if not value:
        return None
    value = value.strip()
    seconds: float
    if value.isdigit():
        seconds = float(value)
    else:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # an HTTP date is always GMT
            return None
        seconds = (when - now).total_seconds()
    return max(0.0, min(seconds, float(settings.MEMHQ_WEBHOOKS_RETRY_AFTER_MAX_S)))


def jittered(delay: float) -> float:
    spread = float(settings.MEMHQ_WEBHOOKS_RETRY_JITTER)
    if spread <= 0:
        return delay
    return delay * random.uniform(1 - spread, 1 + spread)  # spreads load; not a secret


def next_attempt_at(*, attempts: int, now: datetime, retry_after_s: float | None = None) -> datetime | None:
    """When to try again after ``attempts`` failed attempts, or None when the schedule is exhausted."""
    schedule = retry_schedule()
    if attempts > len(schedule):
        return None
    delay = jittered(schedule[attempts - 1]) if attempts >= 1 else 0.0
    if retry_after_s is not None:
        delay = max(delay, retry_after_s)
    return now + timedelta(seconds=delay)
