from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest

from memhq.webhooks.schedule import max_attempts, next_attempt_at, parse_retry_after

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
STANDARD = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]


def test_the_default_schedule_is_standard_webhooks_and_then_dead(settings: Any) -> None:
    settings.MEMHQ_WEBHOOKS_RETRY_JITTER = 0.0
    assert settings.MEMHQ_WEBHOOKS_RETRY_SCHEDULE_S == STANDARD
    assert max_attempts() == 10  # immediately + nine retries
    for attempts, delay in enumerate(STANDARD, start=1):
        assert next_attempt_at(attempts=attempts, now=NOW) == NOW + timedelta(seconds=delay)
    assert next_attempt_at(attempts=10, now=NOW) is None


def test_jitter_spreads_each_delay_within_its_bounds(settings: Any) -> None:
    settings.MEMHQ_WEBHOOKS_RETRY_JITTER = 0.1
    delays = {(next_attempt_at(attempts=2, now=NOW) - NOW).total_seconds() for _ in range(50)}  # type: ignore[operator]
    assert all(270 <= delay <= 330 for delay in delays)
    assert len(delays) > 1


def test_retry_after_pushes_the_next_attempt_later_but_never_earlier(settings: Any) -> None:
    settings.MEMHQ_WEBHOOKS_RETRY_JITTER = 0.0
    assert next_attempt_at(attempts=1, now=NOW, retry_after_s=120) == NOW + timedelta(seconds=120)
    assert next_attempt_at(attempts=2, now=NOW, retry_after_s=1) == NOW + timedelta(seconds=300)
    assert next_attempt_at(attempts=10, now=NOW, retry_after_s=1) is None


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 7 ", 7.0),
        (format_datetime(NOW + timedelta(minutes=10), usegmt=True), 600.0),
        (format_datetime(NOW - timedelta(minutes=10), usegmt=True), 0.0),  # a date in the past: now
        ("999999999", 86400.0),  # capped
        (None, None),
        ("", None),
        ("soon", None),
        ("-5", None),
        ("Sun, 06 Nov 1994 08:49:37", None),  # an HTTP date without its GMT zone
    ],
)
def test_retry_after_reads_seconds_or_an_http_date_and_is_capped(
    value: str | None, seconds: float | None
) -> None:
    assert parse_retry_after(value, now=NOW) == seconds


def test_the_retry_after_cap_is_a_setting(settings: Any) -> None:
    settings.MEMHQ_WEBHOOKS_RETRY_AFTER_MAX_S = 60
    assert parse_retry_after("3600", now=NOW) == 60.0


def test_a_malformed_schedule_setting_stops_the_process_with_its_name() -> None:
    from config.env import ConfigError, seconds_list

    assert seconds_list("X", ["1", "2.5"]) == [1.0, 2.5]
    with pytest.raises(ConfigError, match="X must be comma-separated seconds"):
        seconds_list("X", ["1", "soon"])
    with pytest.raises(ConfigError, match="negative"):
        seconds_list("X", ["-1"])
