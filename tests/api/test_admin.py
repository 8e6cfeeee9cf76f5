"""Operators inspect everything in the Django admin: every page renders, nothing there edits evidence."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from ingestion.pipeline import run_inline
from memhq.models import ApiKey, Batch, Entity, Episode, Evidence, Memory, Project
from tests.ingestion.helpers import make_episode


@pytest.fixture
def admin_client(db: None) -> Client:
    user = get_user_model().objects.create_superuser("root", "", "pw")
    client = Client()
    client.force_login(user)
    return client


def test_every_admin_page_renders(project: Project, admin_client: Client) -> None:
    episode = make_episode(
        project, [{"role": "user", "content": "My sister Emma lives in Porto.", "id": "x"}]
    )
    run_inline(episode.pk)
    objects = [
        Episode.objects.get(pk=episode.pk),
        Memory.objects.filter(project=project).first(),
        Entity.objects.filter(project=project).first(),
        Batch.objects.get(episode=episode),
        project,
        ApiKey.objects.get(project=project),
    ]
    for obj in objects:
        assert obj is not None
        meta = obj._meta
        listing = admin_client.get(f"/admin/{meta.app_label}/{meta.model_name}/")
        assert listing.status_code == 200, meta.model_name
        detail = admin_client.get(f"/admin/{meta.app_label}/{meta.model_name}/{obj.pk}/change/")
        assert detail.status_code == 200, meta.model_name
    page = admin_client.get(f"/admin/memhq/episode/{episode.pk}/change/").content.decode()
    assert "My sister Emma lives in Porto." in page  # the raw body, verbatim
    assert "reconcile" in page  # the phase timeline


def test_creating_an_api_key_in_the_admin_shows_it_once(project: Project, admin_client: Client) -> None:
    response = admin_client.post(
        "/admin/memhq/apikey/add/", {"project": str(project.pk), "name": "from-admin"}, follow=True
    )
    assert response.status_code == 200
    shown = [str(message) for message in response.context["messages"]]
    assert any("mhq_" in message for message in shown)
    assert ApiKey.objects.filter(project=project, name="from-admin").count() == 1


def test_evidence_cannot_be_updated_even_directly(project: Project) -> None:
    from django.db import DatabaseError, transaction

    episode = make_episode(project, [{"role": "user", "content": "I live in Oslo."}])
    run_inline(episode.pk)
    evidence = Evidence.objects.filter(memory__project=project).first()
    assert evidence is not None
    with pytest.raises(DatabaseError, match="immutable"), transaction.atomic():
        Evidence.objects.filter(pk=evidence.pk).update(quote="tampered")
