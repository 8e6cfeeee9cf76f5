"""Whose name, birthday or favourite a sentence states, and a pet named after it is introduced: "my sister's
name is Ana" names the sister, not the speaker; "we named the project Falcon" names no one; "We adopted a
puppy. His name is Mochi." names the puppy (``rules_relations.named_pet``)."""

from __future__ import annotations

import pytest

from tests.ingestion.rules_support import one


def facts(text: str) -> list[tuple[str, str, str]]:
    return [(c.subject, c.predicate, c.object) for c in one(text)]


@pytest.mark.parametrize(
    ("text", "pet", "claim"),
    [
        ("We adopted a puppy. His name is Mochi.", "Mochi", "User has a puppy named Mochi."),
        ("We got a cat last week, she's called Pepper.", "Pepper", "User has a cat named Pepper."),
        ("I rescued a kitten, we named her Biscuit.", "Biscuit", "User has a kitten named Biscuit."),
        ("We got a dog. He is named Rex.", "Rex", "User has a dog named Rex."),
    ],
)
def test_a_pet_named_after_it_is_introduced(text: str, pet: str, claim: str) -> None:
    named = [c for c in one(text) if c.predicate == "has_pet" and c.object == pet]
    assert [c.claim for c in named] == [claim]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("We got a dog. My neighbour's name is Rex.", "Rex"),  # someone else's name
        ("We adopted a puppy and a kitten. His name is Mochi.", "Mochi"),  # which one?
    ],
)
def test_a_name_that_is_not_the_pets(text: str, name: str) -> None:
    assert not [c for c in one(text) if c.predicate == "has_pet" and c.object == name]


@pytest.mark.parametrize(
    "text",
    [
        "My sister's name is Ana.",
        "My dog's name is Mochi.",
        "We named the project Falcon.",
        "I named my sourdough starter Clint.",
    ],
)
def test_a_name_that_is_not_the_speakers(text: str) -> None:
    assert not [f for f in facts(text) if f[0] == "user" and f[1] == "name"]


def test_another_persons_birthday_hobby_or_favourite_is_not_the_speakers() -> None:
    for text in (
        "My mom's birthday is March 3.",
        "My husband's hobby is woodworking.",
        "My son's favorite book is Holes.",
    ):
        assert not [f for f in facts(text) if f[0] == "user"], text


def test_the_speakers_own_still_are() -> None:
    assert ("user", "name", "Sam") in facts("My name is Sam.")
    assert ("user", "favorite_book", "Dune") in facts("My favorite book is Dune.")
    assert ("user", "hobby", "woodworking") in facts("My hobby is woodworking.")


def test_a_verb_that_shares_a_state_s_name_is_not_that_state() -> None:
    assert [f[1] for f in facts("I partnered with Acme on the launch.")] == ["partners"]
