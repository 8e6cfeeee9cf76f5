"""The admin shows the journey at a glance: newest first, the episode's timeline and memories, a memory's
journal history behind its History button, an entity's aliases and memories."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from memhq.models import Entity, Memory, Project
from tests.control.helpers import ingest, moved


@pytest.fixture
def admin_client(db: None) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "", "pw"))
    return client


def test_episode_list_is_newest_first(project: Project, admin_client: Client) -> None:
    older = ingest(project, "I play the cello.", "2024-01-01T10:00:00Z", msg_id="a")
    newer = ingest(project, "I drink green tea.", "2024-02-01T10:00:00Z", msg_id="b")
    page = admin_client.get("/admin/memhq/episode/").content.decode()
    assert page.index(str(newer.pk)) < page.index(str(older.pk))


def test_episode_page_shows_the_phase_timeline_and_links_the_memories_it_made(
    project: Project, admin_client: Client
) -> None:
    episode = ingest(project, "I work as a nurse in Leeds.", "2024-03-01T10:00:00Z")
    page = admin_client.get(f"/admin/memhq/episode/{episode.pk}/change/").content.decode()
    rows = re.findall(r'<tr class="phase-row phase-(\w+)"><td>([\w ]+)</td>', page)
    assert [name for _, name in rows][:3] == ["persist", "anchor dates", "extract"]
    assert len(rows) == 7 and {outcome for outcome, _ in rows} == {"done"}
    assert page.count('class="phase-bar"') == 7
    memory = Memory.objects.get(project=project, episode=episode, object_value__icontains="nurse")
    assert f"/admin/memhq/memory/{memory.pk}/change/" in page


def test_memory_history_button_shows_the_journal(project: Project, admin_client: Client) -> None:
    old, new = moved(project)
    page = admin_client.get(f"/admin/memhq/memory/{old.pk}/history/").content.decode()
    events = re.findall(r'<tr class="history-event"><td>[^<]+</td><td><b>(\w+)</b>', page)
    assert events == ["extracted", "extracted", "superseded"]
    assert "status: active → superseded" in page
    assert "“I live in Berlin”" in page  # the evidence quote
    change = admin_client.get(f"/admin/memhq/memory/{new.pk}/change/").content.decode()
    assert "superseded" in change and f"/admin/memhq/memory/{old.pk}/change/" in change


def test_entity_page_lists_its_aliases_and_the_memories_that_touch_it(
    project: Project, admin_client: Client
) -> None:
    ingest(project, "My sister Ines lives in Porto.", "2024-04-01T10:00:00Z")
    entity = Entity.objects.get(project=project, name="Ines")
    entity.aliases = ["Inês", "Nessa"]
    entity.save(update_fields=["aliases"])
    page = admin_client.get(f"/admin/memhq/entity/{entity.pk}/change/").content.decode()
    assert "Inês, Nessa" in page
    touching = Memory.objects.filter(project=project, entity_ids__contains=[entity.pk])
    assert touching.exists()
    for memory in touching:
        assert f"/admin/memhq/memory/{memory.pk}/change/" in page


def test_user_page_lists_memories_by_status_entities_episodes_and_batches(
    project: Project, admin_client: Client
) -> None:
    old, new = moved(project)
    memories = admin_client.get("/admin/memhq/memory/").content.decode()
    assert f"/admin/memhq-user/?project={project.pk}&amp;user_id=alice" in memories
    page = admin_client.get("/admin/memhq-user/", {"project": str(project.pk), "user_id": "alice"})
    assert page.status_code == 200
    html = page.content.decode()
    assert "active: <b>1</b>" in html and "superseded: <b>1</b>" in html
    assert html.index(f"/admin/memhq/memory/{new.pk}/change/") < html.index('class="memories-superseded"')
    assert f"/admin/memhq/memory/{old.pk}/change/" in html
    assert "Episodes (2)" in html and "Batches (2)" in html
    assert f"/admin/memhq-graph/?project={project.pk}&amp;user_id=alice" in html
    assert (
        Client().get("/admin/memhq-user/", {"project": str(project.pk), "user_id": "alice"}).status_code
        == 302
    )


def test_every_memhq_list_is_newest_first() -> None:
    from django.contrib import admin

    from memhq.models import ConsolidationCursor

    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label != "memhq" or model is ConsolidationCursor:
            continue
        ordering = model_admin.ordering or ()
        assert ordering and str(ordering[0]).startswith("-"), model.__name__
