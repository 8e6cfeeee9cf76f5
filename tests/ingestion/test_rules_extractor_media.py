"""The rules extractor on favourites and works: "my favourite show is X" in both spellings (even when the
small model misparses it), and titles typed as media when they are watched, read or listened to."""

from __future__ import annotations

import pytest

from ingestion.extractors.base import CandidateOut
from ingestion.extractors.predicates import has_strong_object_type, normalise_predicate, object_entity_type
from tests.ingestion.rules_support import one


def object_mentions(candidates: list[CandidateOut]) -> list[tuple[str, str]]:
    return [(m.name, m.type) for c in candidates for m in c.mentions if m.role == "object"]


@pytest.mark.parametrize(
    "text",
    [
        "My favourite show is Breaking Bad.",  # "Breaking" parsed as the root verb: matched on the words
        "My favorite show is Breaking Bad.",
        "Breaking Bad is my favourite show.",
    ],
)
def test_a_favourite_show_is_a_preference_with_a_media_object(text: str) -> None:
    found = one(text)
    assert [(c.predicate, c.object, c.kind) for c in found] == [
        ("favorite_show", "Breaking Bad", "preference")
    ]
    assert object_mentions(found) == [("Breaking Bad", "media")]
    assert "Breaking Bad" in found[0].claim and found[0].claim.startswith(("User", "Breaking"))


@pytest.mark.parametrize(
    ("text", "predicate", "value"),
    [
        ("Our favourite TV show is The Office.", "favorite_tv_show", "Office"),
        ("My fave band is Radiohead.", "favorite_band", "Radiohead"),
        ("My favourite film is Amelie because it is gentle.", "favorite_film", "Amelie"),
    ],
)
def test_surface_favourites_stop_at_the_value(text: str, predicate: str, value: str) -> None:
    found = one(text)
    assert [(c.predicate, c.object) for c in found] == [(predicate, value)]
    assert object_mentions(found)[0][1] == "media"


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("I watched Breaking Bad last week.", "Breaking Bad"),
        ("We watched Inception last night.", "Inception"),
        ("I've been reading The Name of the Wind.", "The Name of the Wind"),
        ("I love watching Breaking Bad.", "Breaking Bad"),
        ("I love reading Dune.", "Dune"),
        ("I'm binge-watching Severance.", "Severance"),
    ],
)
def test_what_is_watched_or_read_is_media_whatever_ner_says(text: str, title: str) -> None:
    assert (title, "media") in object_mentions(one(text))


def test_listening_types_the_work_as_media_only_when_ner_has_nothing_better() -> None:
    assert object_mentions(one("I listened to the new Radiohead album.")) == [
        ("new Radiohead album", "media")
    ]
    assert object_mentions(one("I've been listening to Taylor Swift a lot.")) == [("Taylor Swift", "person")]


def test_a_name_only_right_after_the_copula_is_the_speakers_name() -> None:
    assert [c.predicate for c in one("I'm Ana.")] == ["name"]
    assert "name" not in [c.predicate for c in one("I'm binge-watching Severance.")]


def test_a_value_that_is_not_spelled_as_a_name_names_nothing() -> None:
    # a variable in a worked problem is not what the user's things are called
    assert [c.claim for c in one("My base case is n=2, which is prime.")] == [
        "User's base case is n=2, which is prime."
    ]
    assert [c.claim for c in one("My slope is m = 3.")] == ["User's slope is m = 3."]
    assert "User's name is O'Brien." in [c.claim for c in one("I'm O'Brien.")]


@pytest.mark.parametrize(
    ("predicate", "kind", "strong"),
    [
        ("favourite_show", "media", True),
        ("favorite_tv_show", "media", True),
        ("favourite_food", "concept", True),
        ("watch", "media", True),
        ("read", "media", True),
        ("listen", "media", False),
        ("not_watch", None, False),
    ],
)
def test_media_predicates(predicate: str, kind: str | None, strong: bool) -> None:
    assert normalise_predicate("Favourite_Show") == "favorite_show"
    assert object_entity_type(predicate) == kind
    assert has_strong_object_type(predicate) is strong
