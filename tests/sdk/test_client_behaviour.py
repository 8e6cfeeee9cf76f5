"""The SDK's async client, retries, idempotency on a lost answer, webhook signatures, and its schema."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
import typing
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from drf_spectacular.generators import SchemaGenerator
from memhq_client import (
    AsyncMemHQ,
    MemHQ,
    MemHQConnectionError,
    NotFoundError,
    RateLimitError,
    WebhookVerificationError,
    verify_webhook,
)
from memhq_client import _requests as requests
from memhq_client._async_methods import AsyncMethods
from memhq_client._sync_methods import SyncMethods
from memhq_client.types import SCHEMA_COMPONENTS

from memhq.models import Episode, Project
from memhq.webhooks import signing
from tests.sdk.conftest import SDK


def test_the_async_client_does_a_whole_turn(live_server: Any, project: Project) -> None:
    async def turn() -> None:
        async with AsyncMemHQ(live_server.url, project.test_key) as memory:  # type: ignore[attr-defined]
            await memory.create_memory("alice", "Alice is allergic to peanuts.", "fact")
            await memory.create_thread("alice", "chat-a")
            await memory.add_message("chat-a", "user", "Can you suggest a snack?")
            prepared, recalled = await asyncio.gather(
                memory.prepare("chat-a"), memory.recall("alice", "Can you suggest a snack?")
            )
            assert prepared["messages"][-1]["content"] == "Can you suggest a snack?"
            assert "peanuts" in recalled["context"]
            added = await memory.add("alice", [{"role": "user", "content": "I ride my bike to work."}])
            assert (await memory.episode(added["episode_id"]))["id"] == added["episode_id"]
            with pytest.raises(NotFoundError):
                await memory.thread("no-such-thread")

    asyncio.run(turn())


class DropFirstAnswer(BaseHTTPRequestHandler):
    """Forwards to the live server; for the first request, drops the answer (as a broken connection would)."""

    upstream = ""
    seen: list[str] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.seen.append(self.headers.get("Idempotency-Key", ""))
        headers = {k: v for k, v in self.headers.items() if k.lower() not in {"host", "content-length"}}
        answer = httpx.post(self.upstream + self.path, content=body, headers=headers)
        if len(self.seen) == 1:
            self.close_connection = True
            return  # the episode is stored upstream, but the client never hears about it
        self.send_response(answer.status_code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer.content)))
        self.end_headers()
        self.wfile.write(answer.content)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def proxy(live_server: Any) -> Iterator[type[DropFirstAnswer]]:
    handler = type("Handler", (DropFirstAnswer,), {"upstream": live_server.url, "seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    handler.url = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    yield handler
    server.shutdown()


def test_a_lost_answer_to_add_is_retried_with_the_same_key_and_stores_one_episode(
    proxy: Any, project: Project
) -> None:
    with MemHQ(proxy.url, project.test_key) as memory:  # type: ignore[attr-defined]
        added = memory.add("bob", [{"role": "user", "content": "I have two cats."}])
    assert len(proxy.seen) == 2 and proxy.seen[0] == proxy.seen[1] != ""
    assert Episode.objects.filter(user_id="bob").count() == 1
    assert str(Episode.objects.get(user_id="bob").pk) == added["episode_id"]


def test_a_lost_answer_to_a_non_repeatable_call_is_not_sent_twice(proxy: Any, project: Project) -> None:
    with MemHQ(proxy.url, project.test_key) as memory, pytest.raises(MemHQConnectionError):  # type: ignore[attr-defined]
        memory.create_memory("bob", "Bob has two cats.", "fact")
    assert len(proxy.seen) == 1


class Throttled(BaseHTTPRequestHandler):
    answers: list[int] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        status = self.answers.pop(0) if self.answers else 200
        body = json.dumps({"error": {"code": "throttled", "message": "slow down", "fields": {}}}).encode()
        if status == 200:
            body = json.dumps({"context": "ok", "items": []}).encode()
        self.send_response(status)
        self.send_header("Retry-After", "0")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def throttled() -> Iterator[tuple[str, type[Throttled]]]:
    handler = type("Handler", (Throttled,), {"answers": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler
    server.shutdown()


def test_429_and_503_are_retried_honouring_retry_after_then_raised(throttled: Any) -> None:
    url, handler = throttled
    handler.answers = [429, 503]
    with MemHQ(url, "mhq_x_y", max_retries=3) as memory:
        assert memory.recall("u", "q")["context"] == "ok"
    handler.answers = [429, 429, 429]
    with MemHQ(url, "mhq_x_y", max_retries=2) as memory, pytest.raises(RateLimitError) as limited:
        memory.recall("u", "q")
    assert limited.value.code == "throttled"


def test_a_server_that_is_not_there_is_a_connection_error_after_the_retries() -> None:
    started = time.monotonic()
    with MemHQ("http://127.0.0.1:1", "mhq_x_y", max_retries=2) as memory, pytest.raises(MemHQConnectionError):
        memory.recall("u", "q")
    assert time.monotonic() - started < 5


def test_verify_webhook_accepts_the_servers_signature_and_refuses_others() -> None:
    old, new = signing.secret_generate(), signing.secret_generate()
    body = json.dumps({"type": "webhook.ping", "timestamp": "…", "data": {}}).encode()
    now = int(time.time())
    headers = signing.headers(secrets_=[new, old], msg_id="msg_1", timestamp=now, body=body)
    assert verify_webhook(new, body, headers)["type"] == "webhook.ping"
    assert verify_webhook(old, body, {k.upper(): v for k, v in headers.items()})["data"] == {}
    with pytest.raises(WebhookVerificationError, match="no signature"):
        verify_webhook(signing.secret_generate(), body, headers)
    with pytest.raises(WebhookVerificationError, match="no signature"):
        verify_webhook(new, body + b" ", headers)
    with pytest.raises(WebhookVerificationError, match="too far"):
        verify_webhook(new, body, headers, now=now + 3600)


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return typing.cast(dict[str, Any], SchemaGenerator().get_schema(request=None, public=True))


def test_answer_types_match_the_openapi_schema(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    for name, typed in SCHEMA_COMPONENTS.items():
        keys = set(typing.get_type_hints(typed))
        properties = set(components[name]["properties"])
        assert keys <= properties, f"{typed.__name__} has keys the schema's {name} lacks: {keys - properties}"
        required = set(components[name].get("required", []))
        assert required <= keys, f"{typed.__name__} lacks {name}'s required {required - keys}"


def test_request_bodies_only_use_fields_of_the_openapi_schema(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    recall_body = requests.recall_body(
        "q", as_of="2026-01-01T00:00:00Z", limit=5, max_tokens=500, include_history=True, kinds=["fact"]
    )
    built = {
        "AddRequestRequest": requests.add(
            "u",
            [{"role": "user", "content": "x"}],
            timestamp="t",
            thread_id="t",
            metadata={},
            idempotency_key=None,
        ),
        "RecallRequestRequest": requests.recall("u", recall_body),
        "PrepareAndRecallRequest": requests.prepare_and_recall("t", 20, recall_body),
        "ThreadCreateRequest": requests.thread_create("u", "t", True),
        "MessageInRequest": requests.message_add(
            "t", {"role": "user", "content": "x", "name": "n", "id": "i", "timestamp": "t"}
        ),
        "MemoryCreateRequest": requests.memory_create(
            "u",
            "x",
            {
                "kind": "fact",
                "subject": "s",
                "predicate": "p",
                "object": "o",
                "importance": 0.5,
                "valid_from": "t",
            },  # fmt: skip
        ),
        "PatchedMemoryUpdateRequest": requests.memory_update(
            "m", {"text": "x", "kind": "fact", "object": "o", "importance": 0.5, "status": "active"}
        ),
        "EndpointCreateRequest": requests.webhook_create("https://x", ["memories.changed"], "d"),
        "PatchedEndpointUpdateRequest": requests.webhook_update(
            "e", {"url": "u", "event_types": [], "description": "d", "active": True}
        ),
    }
    for name, request in built.items():
        keys, properties = set(request.json), set(components[name]["properties"])
        assert keys <= properties, f"{name}: {keys - properties}"


def test_the_sync_and_async_clients_have_the_same_methods_and_are_generated_up_to_date() -> None:
    def public(cls: type) -> set[str]:
        return {name for name in vars(cls) if not name.startswith("_")}

    assert public(SyncMethods) == public(AsyncMethods) and len(public(SyncMethods)) >= 35
    check = subprocess.run(
        [sys.executable, str(SDK / "gen_clients.py"), "--check"], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout
