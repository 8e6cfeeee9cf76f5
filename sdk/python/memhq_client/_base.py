"""The HTTP side of the two clients: connection, headers, retries with backoff, errors."""

from __future__ import annotations

import asyncio
import time
from types import TracebackType
from typing import Any, Self, cast

import httpx

from memhq_client import _requests as r
from memhq_client._transport import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT_S,
    Request,
    backoff_s,
    decode,
    headers_for,
    settings,
    should_retry_error,
    should_retry_status,
)
from memhq_client.errors import MemHQConnectionError, MemHQError
from memhq_client.types import Episode

USER_AGENT = "memhq-client-python/0.1.0"
EPISODE_POLL_S = 0.5
DONE_STATUSES = ("completed", "failed")


class EpisodeFailed(MemHQError):
    """``wait_for_episode``: the episode failed (``episode["error_phase"]``, ``episode["error"]``)."""

    def __init__(self, episode: Episode) -> None:
        super().__init__(f"episode {episode.get('id')} failed: {episode.get('error')}")
        self.episode = episode


class _Common:
    def __init__(
        self,
        base_url: str | None,
        api_key: str | None,
        timeout_s: float,
        max_retries: int,
    ) -> None:
        self.base_url, key = settings(base_url, api_key)
        self.max_retries = max_retries
        self._headers = headers_for(key, USER_AGENT)
        self._timeout = httpx.Timeout(timeout_s)

    def _kwargs(self, request: Request) -> dict[str, Any]:
        return {
            "params": request.params,
            "json": request.json,
            "headers": {**self._headers, **request.headers},
        }


class SyncBase(_Common):
    """``MemHQ(base_url=None, api_key=None)``: arguments, else MEMHQ_URL / MEMHQ_KEY."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_retries: int = DEFAULT_MAX_RETRIES,
        http_client: httpx.Client | None = None,
    ) -> None:
        super().__init__(base_url, api_key, timeout_s, max_retries)
        self._http = http_client or httpx.Client(base_url=self.base_url, timeout=self._timeout)

    def _call(self, request: Request) -> Any:
        attempt = 0
        while True:
            try:
                response = self._http.request(request.method, request.path, **self._kwargs(request))
            except httpx.TransportError as exc:
                if not should_retry_error(exc, request, attempt, self.max_retries):
                    raise MemHQConnectionError(f"{request.method} {request.path}: {exc}") from exc
                time.sleep(backoff_s(attempt, None))
            else:
                if not should_retry_status(response, attempt, self.max_retries):
                    return decode(response)
                time.sleep(backoff_s(attempt, response))
            attempt += 1

    def wait_for_episode(self, episode_id: str, *, timeout_s: float = 60.0) -> Episode:
        """Poll until the episode is processed; raises ``EpisodeFailed`` or ``TimeoutError``."""
        deadline = time.monotonic() + timeout_s
        while True:
            episode = cast(Episode, self._call(r.episode(episode_id)))
            if episode.get("status") == "failed":
                raise EpisodeFailed(episode)
            if episode.get("status") == "completed":
                return episode
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"episode {episode_id} is still {episode.get('status')} after {timeout_s} s"
                )
            time.sleep(EPISODE_POLL_S)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncBase(_Common):
    """``AsyncMemHQ(base_url=None, api_key=None)``: arguments, else MEMHQ_URL / MEMHQ_KEY."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_retries: int = DEFAULT_MAX_RETRIES,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(base_url, api_key, timeout_s, max_retries)
        self._http = http_client or httpx.AsyncClient(base_url=self.base_url, timeout=self._timeout)

    async def _call(self, request: Request) -> Any:
        attempt = 0
        while True:
            try:
                response = await self._http.request(request.method, request.path, **self._kwargs(request))
            except httpx.TransportError as exc:
                if not should_retry_error(exc, request, attempt, self.max_retries):
                    raise MemHQConnectionError(f"{request.method} {request.path}: {exc}") from exc
                await asyncio.sleep(backoff_s(attempt, None))
            else:
                if not should_retry_status(response, attempt, self.max_retries):
                    return decode(response)
                await asyncio.sleep(backoff_s(attempt, response))
            attempt += 1

    async def wait_for_episode(self, episode_id: str, *, timeout_s: float = 60.0) -> Episode:
        """Poll until the episode is processed; raises ``EpisodeFailed`` or ``TimeoutError``."""
        deadline = time.monotonic() + timeout_s
        while True:
            episode = cast(Episode, await self._call(r.episode(episode_id)))
            if episode.get("status") == "failed":
                raise EpisodeFailed(episode)
            if episode.get("status") == "completed":
                return episode
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"episode {episode_id} is still {episode.get('status')} after {timeout_s} s"
                )
            await asyncio.sleep(EPISODE_POLL_S)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
