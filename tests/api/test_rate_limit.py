"""MEMHQ_RATE_LIMIT: atomic under bursts, Retry-After on 429, and fail-open (logged) when Redis is away."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from rest_framework.test import APIClient

from memhq.api.throttling import ProjectRateThrottle, limiter
from memhq.models import Project

PAYLOAD = {"user_id": "u1", "messages": [{"role": "user", "content": "I live in Oslo."}]}
BURST = 100
LIMIT = 20


@pytest.fixture
def rate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    def set_rate(value: str) -> None:
        monkeypatch.setattr(ProjectRateThrottle, "THROTTLE_RATES", {"project": value})

    limiter.reset()
    yield set_rate
    limiter.reset()


def test_a_burst_of_parallel_requests_never_lets_more_than_the_limit_through(
    rate: Any, project: Project
) -> None:
    rate(f"{LIMIT}/min")
    request = SimpleNamespace(auth=project)
    barrier = threading.Barrier(BURST)
    allowed: list[bool] = []

    def one() -> None:
        throttle = ProjectRateThrottle()
        barrier.wait()
        allowed.append(throttle.allow_request(request, None))  # type: ignore[arg-type]

    threads = [threading.Thread(target=one) for _ in range(BURST)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(allowed) == BURST
    assert sum(allowed) == LIMIT


def test_a_limited_request_is_429_with_retry_after(rate: Any, api: APIClient) -> None:
    rate("2/min")
    statuses = [api.post("/v1/memhq/add", PAYLOAD, format="json").status_code for _ in range(3)]
    assert statuses == [202, 202, 429]
    limited = api.post("/v1/memhq/add", PAYLOAD, format="json")
    assert limited.json()["error"]["code"] == "rate_limited"
    assert 0 < int(limited["Retry-After"]) <= 60


def test_the_window_slides(rate: Any, project: Project) -> None:
    rate("3/s")
    request = SimpleNamespace(auth=project)
    throttle = ProjectRateThrottle()
    assert [throttle.allow_request(request, None) for _ in range(4)] == [True, True, True, False]  # type: ignore[arg-type]
    time.sleep(1.05)
    assert throttle.allow_request(request, None)  # type: ignore[arg-type]


def test_when_redis_is_down_requests_are_let_through_and_it_is_logged(
    rate: Any, api: APIClient, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.MEMHQ_RATE_LIMIT_REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    rate("1/min")
    caplog.set_level(logging.WARNING, logger="memhq.api.throttling")
    started = time.monotonic()
    statuses = [api.post("/v1/memhq/add", PAYLOAD, format="json").status_code for _ in range(5)]
    assert statuses == [202] * 5
    assert time.monotonic() - started < 5 * 0.5
    warnings = [record for record in caplog.records if "rate limiter unavailable" in record.getMessage()]
    assert len(warnings) == 1  # once per backoff period, not once per request
