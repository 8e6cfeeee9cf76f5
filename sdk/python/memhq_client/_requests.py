"""One function per API call, building its ``Request``; the sync and async clients only send them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from memhq_client._transport import API, Request, clean, compact, new_idempotency_key
from memhq_client.types import Message


def _seg(value: str) -> str:
    return quote(str(value), safe="")


def _messages(messages: Iterable[Message | Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [dict(message) for message in messages]


def add(
    user_id: str,
    messages: Iterable[Message | Mapping[str, Any]],
    *,
    timestamp: str | None,
    thread_id: str | None,
    metadata: Mapping[str, Any] | None,
    idempotency_key: str | None,
) -> Request:
    body = compact(
        {
            "user_id": user_id,
            "messages": _messages(messages),
            "timestamp": timestamp,
            "thread_id": thread_id,
            "metadata": dict(metadata) if metadata is not None else None,
        }
    )
    key = idempotency_key or new_idempotency_key()  # so a retried /add never stores the episode twice
    return Request("POST", f"{API}/add", json=body, headers={"Idempotency-Key": key}, repeatable=True)


def episode(episode_id: str) -> Request:
    return Request("GET", f"{API}/episodes/{_seg(episode_id)}")


def episodes(user_id: str | None, status: str | None, cursor: str | None) -> Request:
    return Request(
        "GET", f"{API}/episodes", params=clean({"user_id": user_id, "status": status, "cursor": cursor})
    )


def recall_body(
    query: str,
    *,
    as_of: str | None,
    limit: int | None,
    max_tokens: int | None,
    include_history: bool | None,
    kinds: Sequence[str] | None,
) -> dict[str, Any]:
    return compact(
        {
            "query": query,
            "as_of": as_of,
            "limit": limit,
            "max_tokens": max_tokens,
            "include_history": include_history,
            "kinds": list(kinds) if kinds is not None else None,
        }
    )


def recall(user_id: str, body: dict[str, Any]) -> Request:
    return Request("POST", f"{API}/recall", json={"user_id": user_id, **body}, repeatable=True)


def thread_create(user_id: str, thread_id: str | None, temporary: bool) -> Request:
    body = compact({"user_id": user_id, "thread_id": thread_id, "temporary": temporary})
    # The same thread_id again answers the existing thread: repeatable when the id is the caller's.
    return Request("POST", f"{API}/threads", json=body, repeatable=thread_id is not None)


def thread(thread_id: str) -> Request:
    return Request("GET", f"{API}/threads/{_seg(thread_id)}")


def threads(user_id: str | None, status: str | None, cursor: str | None) -> Request:
    return Request(
        "GET", f"{API}/threads", params=clean({"user_id": user_id, "status": status, "cursor": cursor})
    )


def message_add(thread_id: str, message: Mapping[str, Any]) -> Request:
    return Request("POST", f"{API}/threads/{_seg(thread_id)}/messages", json=compact(dict(message)))


def prepare(thread_id: str, message_limit: int | None) -> Request:
    params = clean({"message_limit": message_limit})
    return Request("GET", f"{API}/threads/{_seg(thread_id)}/prepare", params=params)


def prepare_and_recall(thread_id: str, message_limit: int | None, body: dict[str, Any]) -> Request:
    payload = {**body, **compact({"message_limit": message_limit})}
    return Request(
        "POST", f"{API}/threads/{_seg(thread_id)}/prepare-and-recall", json=payload, repeatable=True
    )


def thread_end(thread_id: str) -> Request:
    return Request("POST", f"{API}/threads/{_seg(thread_id)}/end", repeatable=True)


def memories(user_id: str, filters: Mapping[str, Any], cursor: str | None) -> Request:
    return Request("GET", f"{API}/memories", params=clean({"user_id": user_id, **filters, "cursor": cursor}))


def memory(memory_id: str) -> Request:
    return Request("GET", f"{API}/memories/{_seg(memory_id)}")


def memory_create(user_id: str, text: str, fields: Mapping[str, Any]) -> Request:
    return Request("POST", f"{API}/memories", json=compact({"user_id": user_id, "text": text, **fields}))


def memory_update(memory_id: str, fields: Mapping[str, Any]) -> Request:
    return Request("PATCH", f"{API}/memories/{_seg(memory_id)}", json=compact(dict(fields)))


def memory_action(memory_id: str, action: str) -> Request:
    return Request("POST", f"{API}/memories/{_seg(memory_id)}/{action}", repeatable=True)


def memory_delete(memory_id: str) -> Request:
    return Request("DELETE", f"{API}/memories/{_seg(memory_id)}")


def memory_history(memory_id: str) -> Request:
    return Request("GET", f"{API}/memories/{_seg(memory_id)}/history")


def graph(user_id: str, as_of: str | None) -> Request:
    return Request("GET", f"{API}/graph", params=clean({"user_id": user_id, "as_of": as_of}))


def entities(user_id: str | None, cursor: str | None) -> Request:
    return Request("GET", f"{API}/entities", params=clean({"user_id": user_id, "cursor": cursor}))


def entity(entity_id: str) -> Request:
    return Request("GET", f"{API}/entities/{_seg(entity_id)}")


def batches(user_id: str | None, kind: str | None, cursor: str | None) -> Request:
    return Request(
        "GET", f"{API}/batches", params=clean({"user_id": user_id, "kind": kind, "cursor": cursor})
    )


def batch(batch_id: str) -> Request:
    return Request("GET", f"{API}/batches/{_seg(batch_id)}")


def batch_revert(batch_id: str, dry_run: bool, force: bool) -> Request:
    params = clean({"dry_run": dry_run or None, "force": force or None})
    return Request("POST", f"{API}/batches/{_seg(batch_id)}/revert", params=params, repeatable=dry_run)


def user_erase(user_id: str) -> Request:
    return Request("DELETE", f"{API}/users/{_seg(user_id)}")


def webhook_create(url: str, event_types: Sequence[str], description: str | None) -> Request:
    body = compact({"url": url, "event_types": list(event_types), "description": description})
    return Request("POST", f"{API}/webhooks", json=body)


def webhooks() -> Request:
    return Request("GET", f"{API}/webhooks")


def webhook(endpoint_id: str) -> Request:
    return Request("GET", f"{API}/webhooks/{_seg(endpoint_id)}")


def webhook_update(endpoint_id: str, fields: Mapping[str, Any]) -> Request:
    return Request("PATCH", f"{API}/webhooks/{_seg(endpoint_id)}", json=compact(dict(fields)))


def webhook_delete(endpoint_id: str) -> Request:
    return Request("DELETE", f"{API}/webhooks/{_seg(endpoint_id)}")


def webhook_test(endpoint_id: str) -> Request:
    return Request("POST", f"{API}/webhooks/{_seg(endpoint_id)}/test")


def webhook_rotate_secret(endpoint_id: str) -> Request:
    return Request("POST", f"{API}/webhooks/{_seg(endpoint_id)}/rotate-secret")


def deliveries(endpoint_id: str, status: str | None, cursor: str | None) -> Request:
    params = clean({"status": status, "cursor": cursor})
    return Request("GET", f"{API}/webhooks/{_seg(endpoint_id)}/deliveries", params=params)


def delivery_replay(delivery_id: str) -> Request:
    return Request("POST", f"{API}/deliveries/{_seg(delivery_id)}/replay")


def page(url: str) -> Request:
    return Request("GET", url)
