"""The memory graph page: reachable from the admin for any user, embeddable through a signed link the API
issues, drawing exactly what GET /graph returns (with evidence), at any as_of."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from memhq.models import Memory, Project
from memhq.ops.graph_links import link_sign
from tests.control.helpers import ingest, moved

VENDORED = Path(settings.BASE_DIR) / "memhq/static/memhq/vendor/cytoscape/cytoscape.min.js"
CYTOSCAPE_SHA256 = "71fa9ebec21a7ca2c40cff6aacc30d1f6464e363662ad4b2c197e1adc770cd94"
BEFORE_THE_MOVE = "2023-03-01T00:00:00Z"


@pytest.fixture
def staff(db: None) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "", "pw"))
    return client


def api_graph(api: APIClient, **params: str) -> dict[str, Any]:
    response = api.get("/v1/memhq/graph", {"user_id": "alice", **params})
    assert response.status_code == 200
    return dict(response.json())


def test_the_vendored_cytoscape_is_the_registry_file_and_is_served(db: None) -> None:
    assert hashlib.sha256(VENDORED.read_bytes()).hexdigest() == CYTOSCAPE_SHA256
    assert "MIT" in (VENDORED.parent / "VENDORED.md").read_text()
    assert "Permission is hereby granted" in (VENDORED.parent / "LICENSE").read_text()


def test_the_admin_graph_page_is_for_staff_only(project: Project) -> None:
    response = Client().get("/admin/memhq-graph/", {"project": str(project.pk), "user_id": "alice"})
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert Client().get("/admin/memhq-graph/data", {"project": str(project.pk)}).status_code == 302


def test_admin_graph_data_is_what_get_graph_returns_with_evidence_at_any_as_of(
    project: Project, api: APIClient, staff: Client
) -> None:
    moved(project)
    target = {"project": str(project.pk), "user_id": "alice"}
    page = staff.get("/admin/memhq-graph/", target).content.decode()
    assert "cytoscape/cytoscape.min." in page and 'id="as-of-range"' in page
    for as_of in ("", BEFORE_THE_MOVE):
        extra = {"as_of": as_of} if as_of else {}
        data = staff.get("/admin/memhq-graph/data", {**target, **extra}).json()
        expected = api_graph(api, **extra)
        assert [node["id"] for node in data["nodes"]] == [node["id"] for node in expected["nodes"]]
        assert [edge["id"] for edge in data["edges"]] == [edge["id"] for edge in expected["edges"]]
        assert all(edge["evidence"] for edge in data["edges"])
    now = staff.get("/admin/memhq-graph/data", target).json()
    then = staff.get("/admin/memhq-graph/data", {**target, "as_of": BEFORE_THE_MOVE}).json()
    assert any("Lisbon" in edge["text"] for edge in now["edges"])
    assert any("Berlin" in edge["text"] for edge in then["edges"])
    assert not any("Lisbon" in edge["text"] for edge in then["edges"])
    assert then["time_span"]["first"].startswith("2023-01")


def test_admin_graph_rejects_a_bad_query_with_field_errors(project: Project, staff: Client) -> None:
    response = staff.get("/admin/memhq-graph/data", {"project": "nope"})
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"project", "user_id"}
    bad = staff.get("/admin/memhq-graph/data", {"project": str(project.pk), "user_id": "a", "as_of": "soon"})
    assert bad.status_code == 400 and "as_of" in bad.json()["error"]["fields"]


def test_a_signed_link_shows_that_users_graph_and_nothing_else(
    project: Project, api: APIClient, other_project: Project
) -> None:
    ingest(project, "I teach chemistry.", "2024-01-05T10:00:00Z")
    ingest(other_project, "I fly planes.", "2024-01-05T10:00:00Z")
    response = api.post("/v1/memhq/graph/links", {"user_id": "alice", "ttl_s": 60}, format="json")
    assert response.status_code == 201, response.content
    url = response.json()["url"]
    assert url.startswith("http://testserver/graph/embed/")
    path = url.removeprefix("http://testserver")
    page = Client().get(path)
    assert page.status_code == 200 and b"cytoscape" in page.content
    data = Client().get(f"{path}/data").json()
    texts = [edge["text"] for edge in data["edges"]]
    ours = Memory.objects.filter(project=project, user_id="alice").values_list("text", flat=True)
    assert texts and set(texts) <= set(ours)
    assert not any("planes" in text for text in texts)


def test_a_tampered_or_expired_link_is_404(project: Project) -> None:
    token, _ = link_sign(project_id=project.pk, user_id="alice", ttl_s=60)
    assert Client().get(f"/graph/embed/{token}x/data").status_code == 404
    expired, _ = link_sign(project_id=project.pk, user_id="alice", ttl_s=0)
    assert Client().get(f"/graph/embed/{expired}").status_code == 404
    assert Client().get(f"/graph/embed/{expired}/data").status_code == 404


def test_issuing_a_link_needs_a_key_and_a_valid_body(api: APIClient, db: None) -> None:
    assert APIClient().post("/v1/memhq/graph/links", {"user_id": "alice"}, format="json").status_code == 401
    too_long = api.post("/v1/memhq/graph/links", {"user_id": "alice", "ttl_s": 10**6}, format="json")
    assert too_long.status_code == 400 and "ttl_s" in too_long.json()["error"]["fields"]
    unknown = api.post("/v1/memhq/graph/links", {"user_id": "alice", "scope": "all"}, format="json")
    assert unknown.status_code == 400 and "scope" in unknown.json()["error"]["fields"]
