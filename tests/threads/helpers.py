"""Calling the thread endpoints the way a client SDK does."""

from __future__ import annotations

import json
from typing import Any

from rest_framework.test import APIClient

THREADS = "/v1/memhq/threads"


def post(api: APIClient, url: str, payload: Any = None) -> Any:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload or {}).encode()
    return api.generic("POST", url, raw, content_type="application/json")  # type: ignore[arg-type]


def create(api: APIClient, user_id: str = "alice", **fields: Any) -> dict[str, Any]:
    response = post(api, THREADS, {"user_id": user_id, **fields})
    assert response.status_code in (200, 201), response.content
    return dict(response.json())


def add(api: APIClient, thread_id: str, content: str, role: str = "user", **fields: Any) -> Any:
    return post(api, f"{THREADS}/{thread_id}/messages", {"role": role, "content": content, **fields})


def say(api: APIClient, thread_id: str, *turns: tuple[str, str]) -> None:
    """Add (role, content) turns, asserting each is accepted."""
    for role, content in turns:
        response = add(api, thread_id, content, role)
        assert response.status_code == 201, response.content


def prepare(api: APIClient, thread_id: str, **params: Any) -> Any:
    return api.get(f"{THREADS}/{thread_id}/prepare", params)


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert set(error) == {"code", "message", "fields"}
    assert error["code"] == code
    return dict(error)
