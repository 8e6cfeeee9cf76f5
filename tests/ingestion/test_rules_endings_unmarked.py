"""Endings said without "no longer" (``rules_job_loss``, ``rules_patterns_change._used_to_facts``): a job
taken away ("I got laid off", "I was fired from Acme", "I retired") and a state that used to hold ("I used to
live in Berlin"). And what only looks like these."""

from __future__ import annotations

import pytest

from tests.ingestion.rules_support import one


def facts(text: str) -> list[tuple[str, str, str]]:
    return [(c.subject, c.predicate, c.object) for c in one(text)]


@pytest.mark.parametrize(
    ("text", "ended"),
    [
        ("I got laid off last week.", [("user", "no_longer_works_at", "")]),
        ("I lost my job in the spring.", [("user", "no_longer_works_at", "")]),
        ("I was fired from Initech.", [("user", "left", "Initech")]),
        ("I got let go from Initech.", [("user", "left", "Initech")]),
        ("I retired in May!", [("user", "no_longer_works_at", ""), ("user", "no_longer_job_title", "")]),
        ("My brother got laid off.", [("user's brother", "no_longer_works_at", "")]),
    ],
)
def test_a_job_taken_away_ends_the_employer(text: str, ended: list[tuple[str, str, str]]) -> None:
    assert facts(text) == ended


@pytest.mark.parametrize("text", ["I didn't get fired.", "I lost my keys.", "The plant laid off 200 people."])
def test_what_is_no_job_lost(text: str) -> None:
    assert not [f for f in facts(text) if f[1] in ("no_longer_works_at", "left")]


@pytest.mark.parametrize(
    ("text", "ended"),
    [
        ("I used to live in Berlin.", ("no_longer_lives_in", "Berlin")),
        ("I used to work at Initech.", ("no_longer_works_at", "Initech")),
        ("I used to love horror movies.", ("no_longer_likes", "horror movies")),
        ("I used to be a teacher.", ("no_longer_job_title", "teacher")),
    ],
)
def test_what_used_to_hold_has_ended(text: str, ended: tuple[str, str]) -> None:
    found = one(text)
    assert [(c.predicate, c.object) for c in found] == [ended]
    assert found[0].claim == "User " + text[2:]  # said in the speaker's own words


def test_being_used_to_a_thing_is_no_tool_and_no_ending() -> None:
    assert [f[1] for f in facts("I'm used to working late.")] == ["used"]


def test_a_tool_used_for_something_is_no_past_habit() -> None:
    assert [f[1] for f in facts("I used Wireshark to find the dropped packets.")] == ["used"]


def test_a_thing_had_before_may_be_another_than_the_one_had_now() -> None:
    assert not [c for c in one("We used to have a dog back in Ohio.") if c.predicate.startswith("no_longer_")]
