"""The synchronous client against a live MemHQ (Django's live server + a real worker), no mocks."""

from __future__ import annotations

from typing import Any

import pytest
from memhq_client import (
    AuthenticationError,
    ConflictError,
    MemHQ,
    NotFoundError,
    ValidationError,
)

from memhq.models import Episode, Project


@pytest.fixture
def memory(live_server: Any, project: Project) -> Any:
    with MemHQ(live_server.url, project.test_key) as client:  # type: ignore[attr-defined]
        yield client


def test_add_wait_and_recall_find_what_the_user_said(memory: MemHQ, celery_worker_process: Any) -> None:
    added = memory.add("alice", [{"role": "user", "content": "My sister Emma lives in Porto.", "id": "m1"}])
    assert added["status"] == "queued"
    episode = memory.wait_for_episode(added["episode_id"], timeout_s=90)
    assert episode["status"] == "completed"
    recalled = memory.recall("alice", "Where does my sister live?")
    assert "Porto" in recalled["context"]
    assert any("m1" in item["provenance"]["message_ids"] for item in recalled["items"])
    page = memory.episodes("alice")
    assert [row["id"] for row in page["results"]] == [added["episode_id"]]


def test_add_sends_an_idempotency_key_so_the_same_key_gives_the_same_episode(memory: MemHQ) -> None:
    messages = [{"role": "user", "content": "I like green tea."}]
    first = memory.add("bob", messages, idempotency_key="turn-1")
    again = memory.add("bob", messages, idempotency_key="turn-1")
    assert again["episode_id"] == first["episode_id"]
    with pytest.raises(ConflictError) as conflict:
        memory.add("bob", [{"role": "user", "content": "Something else."}], idempotency_key="turn-1")
    assert conflict.value.status_code == 409
    other = memory.add("bob", messages)  # a fresh key per call: a new episode
    assert other["episode_id"] != first["episode_id"]
    assert Episode.objects.filter(user_id="bob").count() == 2


def test_a_thread_turn_prepare_and_recall_and_end(memory: MemHQ) -> None:
    memory.create_memory("carol", "Carol is training for a marathon in April.", "event")
    thread = memory.create_thread("carol", "chat-7")
    assert thread["thread_id"] == "chat-7" and thread["status"] == "open"
    assert memory.create_thread("carol", "chat-7")["thread_id"] == "chat-7"  # the same thread again
    memory.add_message("chat-7", "user", "I am training for a marathon in April.", name="Carol", id="t1")
    memory.add_message("chat-7", "assistant", "Great, how many weeks do you have left?")
    prepared = memory.prepare("chat-7", message_limit=20)
    assert [m["role"] for m in prepared["messages"]] == ["user", "assistant"]
    both = memory.prepare_and_recall("chat-7", "How should I plan my training weeks?", limit=5)
    assert both["messages"] == prepared["messages"]
    assert "marathon" in both["recall"]["context"]
    ended = memory.end_thread("chat-7")
    assert ended["status"] == "ended" and len(ended["new_episode_ids"]) == 1
    assert memory.thread("chat-7")["status"] == "ended"
    assert [t["thread_id"] for t in memory.threads("carol")["results"]] == ["chat-7"]


def test_memories_crud_history_graph_batches_revert_and_erasure(memory: MemHQ) -> None:
    created = memory.create_memory(
        "dave", "Dave is vegetarian.", "preference", predicate="diet", object="vegetarian"
    )
    updated = memory.update_memory(created["id"], text="Dave is vegan.", object="vegan")
    assert updated["id"] != created["id"]  # a new version supersedes the old one
    assert memory.memory(created["id"])["status"] == "superseded"
    with pytest.raises(ConflictError):
        memory.update_memory(created["id"], text="Dave eats fish.")
    assert memory.disable_memory(updated["id"])["status"] == "disabled"
    assert memory.enable_memory(updated["id"])["status"] == "active"
    listed = memory.memories("dave", status="active")
    assert [m["id"] for m in listed["results"]] == [updated["id"]]
    deleted = memory.delete_memory(updated["id"])
    assert deleted["status"] == "deleted"
    actions = [event["action"] for event in memory.memory_history(updated["id"])["events"]]
    assert actions[0] == "stated" and actions[-1] == "deleted"
    batch = memory.batches("dave", kind="edit")["results"][0]
    assert memory.batch(batch["id"])["entries"]
    preview = memory.revert_batch(batch["id"], dry_run=True)
    assert preview["dry_run"] is True and preview["would_apply"] is True
    memory.revert_batch(batch["id"])
    assert memory.memory(updated["id"])["status"] == "active"
    graph = memory.graph("dave")
    assert any(edge["id"] == updated["id"] for edge in graph["edges"])
    receipt = memory.erase_user("dave")
    assert receipt["user_id"] == "dave" and receipt["total"] > 0
    assert memory.memories("dave")["results"] == []


def test_errors_are_typed_and_carry_the_field_errors(memory: MemHQ, live_server: Any) -> None:
    with pytest.raises(ValidationError) as invalid:
        memory.add("", [])
    assert set(invalid.value.fields) >= {"user_id", "messages"}
    assert invalid.value.code == "invalid"
    with pytest.raises(NotFoundError):
        memory.memory("00000000-0000-0000-0000-000000000000")
    with MemHQ(live_server.url, "mhq_nope_nope") as stranger, pytest.raises(AuthenticationError):
        stranger.recall("alice", "anything")


def test_list_pages_follow_next(memory: MemHQ) -> None:
    for number in range(3):
        memory.create_memory("erin", f"Erin owns plant number {number}.")
    first = memory.memories("erin", page_size=2)
    assert len(first["results"]) == 2 and first["next"]
    second = memory.next_page(first)
    assert second is not None and len(second["results"]) == 1
    assert memory.next_page(second) is None


def test_webhooks_create_test_rotate_and_delete(memory: MemHQ) -> None:
    endpoint = memory.create_webhook("http://127.0.0.1:9/hook", ["memories.changed"])
    assert endpoint["secret"].startswith("whsec_")
    assert [e["id"] for e in memory.webhooks()["results"]] == [endpoint["id"]]
    delivery = memory.test_webhook(endpoint["id"])
    assert delivery["event_type"] == "webhook.ping"
    assert memory.deliveries(endpoint["id"])["results"][0]["id"] == delivery["id"]
    rotated = memory.rotate_webhook_secret(endpoint["id"])
    assert rotated["secret"] != endpoint["secret"]
    assert memory.update_webhook(endpoint["id"], active=False)["active"] is False
    memory.delete_webhook(endpoint["id"])
    with pytest.raises(NotFoundError):
        memory.webhook(endpoint["id"])
