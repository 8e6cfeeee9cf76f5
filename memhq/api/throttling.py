"""Per-project request rate limit (``MEMHQ_RATE_LIMIT``, e.g. ``100/s``); off when the setting is empty.

A sliding window over the last ``duration`` seconds, kept in Redis so every web process shares it, and
checked-and-counted by ONE Lua script (one round trip, atomic: a burst of parallel requests can never let
more than the limit through, which a read-then-write of a cache key does). Redis's own clock is used, so web
hosts with skewed clocks agree.

The limiter protects the service; it must not take it down. When Redis does not answer within
``MEMHQ_RATE_LIMIT_TIMEOUT_S`` the request is let through (fail open) and a warning is logged, at most once
per ``MEMHQ_RATE_LIMIT_BACKOFF_S``, during which Redis is not asked again (so an outage costs no latency).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from typing import Any

import redis
from django.conf import settings
from redis.backoff import NoBackoff
from redis.retry import Retry
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger(__name__)

KEY_PREFIX = "memhq:ratelimit:"

# KEYS[1] the project's window; ARGV: limit, window (µs), a unique member. Returns {allowed, wait µs}.
SLIDING_WINDOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
    redis.call('ZADD', KEYS[1], now, ARGV[3])
    redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
    return {1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tonumber(oldest[2]) + window - now}
"""


class Limiter:
    """The Redis client and script, built on first use in each process, and the fail-open state."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._script: Any = None
        self._skip_until = 0.0

    def script(self) -> Any:
        with self._lock:
            if self._script is None:
                timeout = settings.MEMHQ_RATE_LIMIT_TIMEOUT_S
                client = redis.Redis.from_url(
                    settings.MEMHQ_RATE_LIMIT_REDIS_URL,
                    socket_connect_timeout=timeout,
                    socket_timeout=timeout,
                    retry=Retry(NoBackoff(), 0),  # no retry: the request is let through instead
                )
                self._script = client.register_script(SLIDING_WINDOW)
            return self._script

    def hit(self, key: str, limit: int, duration_s: float) -> tuple[bool, float]:
        """(allowed, seconds to wait). Fails open when Redis is unreachable."""
        if time.monotonic() < self._skip_until:
            return True, 0.0
        try:
            allowed, wait_us = self.script()(
                keys=[key], args=[limit, int(duration_s * 1_000_000), uuid.uuid4().hex]
            )
        except redis.RedisError as exc:
            self._skip_until = time.monotonic() + settings.MEMHQ_RATE_LIMIT_BACKOFF_S
            logger.warning(
                "rate limiter unavailable (%s: %s); letting requests through for %.1fs",
                type(exc).__name__,
                exc,
                settings.MEMHQ_RATE_LIMIT_BACKOFF_S,
            )
            return True, 0.0
        return bool(allowed), max(int(wait_us), 0) / 1_000_000

    def reset(self) -> None:
        """Forget the client (tests point the limiter elsewhere) and the fail-open state."""
        with self._lock:
            self._script = None
            self._skip_until = 0.0


limiter = Limiter()


class ProjectRateThrottle(SimpleRateThrottle):
    scope = "project"

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        limit, duration = self.parse_rate(self.rate)
        allowed, self._wait_s = limiter.hit(key, int(limit or 0), float(duration or 0))
        return allowed

    def wait(self) -> float | None:
        return getattr(self, "_wait_s", None)

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        project = getattr(request, "auth", None)
        if project is None:
            return None
        return f"{KEY_PREFIX}{project.pk}"
