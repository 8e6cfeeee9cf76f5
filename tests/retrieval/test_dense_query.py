"""The dense signals embed the query without the people it names (retrieval/dense_query.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from django.utils.timezone import now

from memhq.models import Entity, Project
from memhq.services.entities import normalize_name
from retrieval import config as retrieval_config
from retrieval.dense_query import people_named, without_people
from retrieval.query import name_ngrams
from retrieval.recall import fetch, recall
from tests.retrieval.factories import RecordingEmbedder


def person(project: Project, user_id: str, name: str, **fields: Any) -> Entity:
    fields.setdefault("type", "person")
    return Entity.objects.create(
        project=project,
        user_id=user_id,
        name=name,
        normalized_name=normalize_name(name),
        **fields,
    )


def named(project: Project, text: str, user_id: str = "alice") -> list[str]:
    return people_named(project.pk, user_id, name_ngrams(text))


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("What activities does Ines partake in?", ["ines"], "What activities does partake in?"),
        ("What do Ines's kids like?", ["ines"], "What do kids like?"),
        ("what did INES’s sister say", ["ines"], "what did sister say"),
        ("Did Ana Lopez call Ana?", ["ana lopez", "ana"], "Did call ?"),
        ("Where does Anastasia live?", ["ana"], "Where does Anastasia live?"),
        ("Ines?", ["ines"], "Ines?"),
        ("Rosalind and Ines", ["rosalind", "ines"], "and"),
        ("What does she like?", [], "What does she like?"),
    ],
)
def test_without_people_removes_whole_names_and_their_possessive(
    text: str, names: list[str], expected: str
) -> None:
    assert without_people(text, names) == expected


def test_only_the_users_live_people_named_in_the_query_are_found(
    project: Project, other_project: Project
) -> None:
    person(project, "alice", "Ines", normalized_aliases=["mel"])
    person(project, "alice", "Ana Lopez")
    person(project, "alice", "Rosalind's dream")  # an extraction artefact: removing it would remove the topic
    person(project, "alice", "Berlin", type="location")
    merged_into = person(project, "alice", "Tomas")
    person(project, "alice", "Tom", merged_into=merged_into)
    person(project, "bob", "Carl")
    person(other_project, "alice", "Zoe")

    assert named(project, "What did Mel and Ana Lopez do in Berlin?") == ["ana lopez", "mel"]
    assert named(project, "What is Rosalind's dream?") == []
    assert named(project, "Did Tom call Carl or Zoe?") == []
    assert named(project, "anything new?") == []


def test_recall_embeds_the_question_without_the_named_person(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    person(project, "alice", "Ines")
    recording = RecordingEmbedder()
    embedded = recording.embedded
    monkeypatch.setattr("retrieval.query_vectors.get_embedder", lambda: recording)
    result = recall(project_id=project.pk, user_id="alice", query_text="What does Ines paint?")
    assert not result.degraded
    assert embedded == ["What does paint?"]

    embedded.clear()
    whole = replace(retrieval_config.DEFAULT, embed_without_people=False)
    fetch(
        project_id=project.pk,
        user_id="alice",
        query_text="What does Ines paint?",
        as_of=now(),
        history=False,
        config=whole,
    )
    assert embedded == ["What does Ines paint?"]
