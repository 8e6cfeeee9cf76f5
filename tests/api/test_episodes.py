from __future__ import annotations

import uuid

from rest_framework.test import APIClient

from memhq.models import Episode, Project

PAYLOAD = {"user_id": "u1", "messages": [{"role": "user", "content": "hello"}]}


def add(api: APIClient, user_id: str = "u1") -> str:
    response = api.post("/v1/memhq/add", {**PAYLOAD, "user_id": user_id}, format="json")
    assert response.status_code == 202
    return str(response.json()["episode_id"])


def test_get_episode_shows_status_phase_and_timings(api: APIClient) -> None:
    episode_id = add(api)
    Episode.objects.filter(pk=episode_id).update(phase_done=2, stats={"timings_ms": {"persist": 1.5}})
    response = api.get(f"/v1/memhq/episodes/{episode_id}")
    assert response.status_code == 200
    data = response.json()
    assert data["id"] == episode_id
    assert data["status"] == "queued"
    assert data["phase_done"] == 2
    assert data["phase_done_name"] == "anchor dates"
    assert data["timings_ms"] == {"persist": 1.5}
    assert data["error"] == ""
    assert "raw_body" not in data


def test_another_projects_episode_is_404_like_an_unknown_id(api: APIClient, other_api: APIClient) -> None:
    episode_id = add(api)
    foreign = other_api.get(f"/v1/memhq/episodes/{episode_id}")
    unknown = other_api.get(f"/v1/memhq/episodes/{uuid.uuid4()}")
    assert foreign.status_code == unknown.status_code == 404
    assert foreign.json() == unknown.json()
    assert foreign.json()["error"]["code"] == "not_found"


def test_malformed_episode_id_is_404(api: APIClient) -> None:
    assert api.get("/v1/memhq/episodes/not-a-uuid").status_code == 404


def test_list_filters_by_user_and_status_and_never_shows_other_projects(
    api: APIClient, other_api: APIClient, project: Project
) -> None:
    mine = {add(api, "u1"), add(api, "u1")}
    add(api, "u2")
    add(other_api, "u1")
    done = add(api, "u1")
    Episode.objects.filter(pk=done).update(status="completed")
    response = api.get("/v1/memhq/episodes", {"user_id": "u1", "status": "queued"})
    assert response.status_code == 200
    assert {item["id"] for item in response.json()["results"]} == mine
    everything = api.get("/v1/memhq/episodes").json()["results"]
    assert len(everything) == 4


def test_list_paginates_with_a_cursor(api: APIClient) -> None:
    created = [add(api) for _ in range(5)]
    seen: list[str] = []
    url: str | None = "/v1/memhq/episodes?page_size=2"
    while url:
        page = api.get(url).json()
        seen.extend(item["id"] for item in page["results"])
        url = page["next"]
    assert sorted(seen) == sorted(created)
    assert seen == list(reversed(created))  # newest first


def test_list_rejects_an_unknown_status_and_unknown_parameters(api: APIClient) -> None:
    bad_status = api.get("/v1/memhq/episodes", {"status": "bogus"})
    assert bad_status.status_code == 400
    assert "status" in bad_status.json()["error"]["fields"]
    assert api.get("/v1/memhq/episodes", {"colour": "red"}).status_code == 400
