"""GET /memories/{id}/history: the whole chain (superseded versions, edits, reinforcements) with evidence."""

from __future__ import annotations

import uuid
from typing import Any

from rest_framework.test import APIClient

from memhq.models import Memory, Project
from tests.control.helpers import MEMORIES, ingest, key_prefix, moved


def history(api: APIClient, memory: Memory | str) -> dict[str, Any]:
    memory_id = memory.pk if isinstance(memory, Memory) else memory
    response = api.get(f"{MEMORIES}/{memory_id}/history")
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body


def test_the_history_is_the_whole_chain_oldest_first_from_any_version(
    project: Project, api: APIClient
) -> None:
    berlin, lisbon = moved(project)
    ingest(project, "I live in Lisbon.", "2023-06-08T10:00:00Z", msg_id="l2")  # reinforced
    edited = api.patch(f"{MEMORIES}/{lisbon.pk}", {"text": "User lives in Lisbon, Portugal."}, format="json")
    current = edited.json()["id"]
    api.post(f"{MEMORIES}/{current}/disable")
    body = history(api, berlin)
    for other in (current, lisbon):  # the same chain from any of its versions
        assert {**history(api, other), "memory_id": body["memory_id"]} == body
    assert body["current_id"] == current and body["truncated"] is False
    assert [version["object"] for version in body["versions"]] == ["Berlin", "Lisbon", "Lisbon"]
    actions = [(event["action"], event["memory_id"]) for event in body["events"]]
    assert actions == [
        ("extracted", str(berlin.pk)),
        ("extracted", str(lisbon.pk)),
        ("superseded", str(berlin.pk)),
        ("reinforced", str(lisbon.pk)),
        ("edited", current),
        ("superseded", str(lisbon.pk)),
        ("disabled", current),
    ]
    times = [event["at"] for event in body["events"]]
    assert times == sorted(times)
    events = body["events"]
    assert [evidence["message_ids"] for evidence in events[0]["evidence"]] == [["b1"]]
    assert [evidence["message_ids"] for evidence in events[3]["evidence"]] == [
        ["l2"]
    ]  # the reinforcing quote
    assert events[4]["evidence"][0]["quote"] == "User lives in Lisbon, Portugal."
    assert events[4]["batch"]["actor"] == f"key:{key_prefix(project)}"
    assert events[2]["changes"]["status"] == {"before": "active", "after": "superseded"}
    assert events[3]["changes"]["reinforce_count"] == {"before": 0, "after": 1}
    assert events[0]["snapshot"]["text"] == berlin.text
    assert events[0]["batch"]["kind"] == "episode" and events[0]["batch"]["episode"] == str(berlin.episode_id)


def test_the_history_is_bounded_by_the_setting(project: Project, api: APIClient, settings: Any) -> None:
    berlin, _ = moved(project)
    settings.MEMHQ_HISTORY_MAX_EVENTS = 2
    body = history(api, berlin)
    assert len(body["events"]) == 2 and body["truncated"] is True


def test_another_projects_history_is_404_like_an_unknown_id(
    project: Project, api: APIClient, other_api: APIClient
) -> None:
    berlin, _ = moved(project)
    foreign = other_api.get(f"{MEMORIES}/{berlin.pk}/history")
    unknown = api.get(f"{MEMORIES}/{uuid.uuid4()}/history")
    assert foreign.status_code == unknown.status_code == 404
    assert foreign.json() == unknown.json()
    assert api.get(f"{MEMORIES}/nope/history").status_code == 404
