from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ingestion.pipeline import run_inline
from memhq.ai.provider import get_embedder
from memhq.models import Entity, Project
from memhq.services.entities import entities_resolve, entity_resolve, normalize_name
from tests.ingestion.helpers import make_episode

CAR_CHAT = [
    {"role": "user", "content": "Hi! I'm looking for a new car, can you help?"},
    {"role": "assistant", "content": "Sure! What are you looking for?"},
    {
        "role": "user",
        "content": "I'm interested in the Toyota Corolla Hybrid. SUVs are too big for me, "
        "I mostly do city commuting.",
    },
    {"role": "assistant", "content": "The Toyota Corolla Hybrid gets 50 mpg, which is great for the city."},
    {"role": "user", "content": "Nice. I want a family car that is hybrid, easy to park and under $30k."},
]


def resolve(project: Project, name: str, type_: str = "product") -> Entity:
    vector = get_embedder().embed([name])[0]
    return entity_resolve(project_id=project.pk, user_id="u1", name=name, type_=type_, embedding=vector)


def test_normalisation_ignores_case_accents_articles_and_punctuation() -> None:
    assert normalize_name("  The Café  Müller! ") == "cafe muller"
    assert normalize_name("Toyota Corolla Hybrid") == normalize_name("toyota corolla hybrid")


def test_a_typo_folds_into_the_canonical_entity_and_is_kept_as_an_alias(project: Project) -> None:
    canonical = resolve(project, "Toyota Corolla Hybrid")
    typo = resolve(project, "toyota corola hybrid")
    assert typo.pk == canonical.pk
    assert "toyota corola hybrid" in Entity.objects.get(pk=canonical.pk).aliases
    assert resolve(project, "toyota corola hybrid").pk == canonical.pk  # now an exact alias hit


def test_different_things_stay_different(project: Project) -> None:
    assert resolve(project, "Toyota Corolla Hybrid").pk != resolve(project, "Honda Civic").pk
    assert resolve(project, "Anna", "person").pk != resolve(project, "Hanna", "location").pk


def test_an_exact_name_with_another_type_is_the_same_entity(project: Project) -> None:
    # NER labels the same name differently from sentence to sentence ("Toyota" ORG vs PRODUCT); the exact
    # name wins over the label, and a same-type exact match is preferred when there is one.
    organization = resolve(project, "Toyota", "organization")
    assert resolve(project, "Toyota", "product").pk == organization.pk


def test_the_car_chat_keeps_the_users_facts_and_drops_the_rest(project: Project) -> None:
    episode = make_episode(project, CAR_CHAT)
    run_inline(episode.pk)
    claims = [text.lower() for text in project.memories.values_list("text", flat=True)]
    assert 4 <= len(claims) <= 6, claims
    # what "I'm looking for a new car, can you help?" states
    assert "user is looking for a new car." in claims
    assert any("interested in" in claim and "corolla hybrid" in claim for claim in claims)
    assert any("suvs" in claim and "too big" in claim for claim in claims)
    assert any("city commuting" in claim for claim in claims)
    assert any("family car" in claim and "$30k" in claim for claim in claims)
    assert not any("50 mpg" in claim for claim in claims)
    assert not any("asking" in claim or "can you help" in claim for claim in claims)


@pytest.mark.django_db(transaction=True)
def test_concurrent_episodes_naming_the_same_new_entity_end_with_one_entity(project: Project) -> None:
    episodes = [
        make_episode(project, [{"role": "user", "content": f"My friend Zoltan {text}."}])
        for text in ("lives in Budapest", "loves chess", "works at Siemens")
    ]
    errors: list[BaseException] = []

    def work(episode_id: object) -> None:
        try:
            run_inline(episode_id)  # type: ignore[arg-type]
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(episode.pk,)) for episode in episodes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert Entity.objects.filter(project=project, normalized_name="zoltan").count() == 1
    assert Entity.objects.get(project=project, normalized_name="zoltan").mention_count == 3


def resolve_many(project: Project, names: list[tuple[str, str]], user_id: str = "u1") -> list[Entity]:
    vectors = dict(zip([n for n, _ in names], get_embedder().embed([n for n, _ in names]), strict=True))
    found = entities_resolve(project_id=project.pk, user_id=user_id, mentions=names, embeddings=vectors)
    return [found[key] for key in names]


def test_new_names_of_one_episode_see_each_other(project: Project) -> None:
    """A typo of a name first seen in the same episode folds into it, as it would across episodes."""
    first, typo, other = resolve_many(
        project,
        [
            ("Toyota Corolla Hybrid", "product"),
            ("toyota corola hybrid", "product"),
            ("Honda Civic", "product"),
        ],
    )
    assert typo.pk == first.pk != other.pk
    stored = Entity.objects.get(pk=first.pk)
    assert stored.mention_count == 2
    assert stored.aliases == ["toyota corola hybrid"]
    assert Entity.objects.filter(project=project).count() == 2


def test_resolving_more_new_names_costs_no_more_statements(project: Project) -> None:
    def statements(names: list[str], user_id: str) -> int:
        resolve_many(project, [("Oslo", "location")], user_id)  # the user has an entity to compare with
        with CaptureQueriesContext(connection) as queries:
            resolve_many(project, [(name, "person") for name in names], user_id)
        return len(queries.captured_queries)

    names = ["Ingrid", "Tomas", "Astrid", "Magnus", "Sigrid", "Leif", "Solveig", "Bjarne"]
    assert statements(names[:2], "few") == statements(names, "many")
    assert Entity.objects.filter(user_id="many", type="person").count() == len(names)
