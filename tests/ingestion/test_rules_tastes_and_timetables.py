"""A taste said of the thing ("Board games are my thing", ``rules_my_thing``), answers shaped without
"please" ("Keep your answers short"), and a thing's timetable in the present ("My lease ends in August")."""

from __future__ import annotations

import pytest

from tests.ingestion.rules_support import one, told


@pytest.mark.parametrize(
    ("text", "predicate", "thing"),
    [
        ("Board games are really my thing.", "likes", "Board games"),
        ("Opera isn't my thing.", "dislikes", "Opera"),
        ("Camping is not for me.", "dislikes", "Camping"),
        ("Reality TV is not my cup of tea.", "dislikes", "Reality TV"),
        ("Synthwave is my jam.", "likes", "Synthwave"),
    ],
)
def test_a_taste_said_of_the_thing(text: str, predicate: str, thing: str) -> None:
    assert [(c.predicate, c.object) for c in one(text)] == [(predicate, thing)]


@pytest.mark.parametrize(
    "text",
    [
        "It's not my thing.",  # what "it" is, the sentence does not say
        "This parcel is for me.",  # whom it is meant for
        "The invoice is not my thing to chase.",  # a task
    ],
)
def test_no_taste_without_the_thing_or_the_speaker(text: str) -> None:
    assert all(c.predicate not in ("likes", "dislikes") for c in one(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Keep your answers short.", "User wants the assistant to keep the assistant's answers short."),
        (
            "Keep responses under 150 words.",
            "User wants the assistant to keep responses under 150 words.",
        ),
        (
            "Limit your answers to two paragraphs.",
            "User wants the assistant to limit the assistant's answers to two paragraphs.",
        ),
    ],
)
def test_shaping_every_answer_is_an_instruction(text: str, expected: str) -> None:
    assert told(text) == [expected]


@pytest.mark.parametrize(
    "text", ["Keep it short.", "Keep the answers in the spreadsheet.", "Use bullet points."]
)
def test_shaping_one_answer_is_no_instruction(text: str) -> None:
    assert not any("wants the assistant" in claim for claim in told(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [  # said on 10 May 2024: a timetable's present is still to come, its past is over
        ("My lease ends in August.", "User's lease ends in August 2024."),
        ("My daughter starts preschool in September.", "User's daughter starts preschool in September 2024."),
        ("I start my new role in March.", "User starts User's new role in March 2025."),
        ("My lease ended in August.", "User's lease ended in August 2023."),
    ],
)
def test_a_timetable_in_the_present_is_to_come(text: str, expected: str) -> None:
    assert expected in [c.claim for c in one(text)]


def test_a_time_is_no_employer() -> None:
    assert all(c.predicate != "works_at" for c in one("My shift starts at 7."))


def test_an_age_said_before_a_job_is_an_age() -> None:
    found = [(c.predicate, c.object) for c in one("I'm a 29-year-old pharmacist, originally from Cork.")]
    assert found == [("job_title", "pharmacist"), ("age", "29"), ("is_from", "Cork")]


def test_a_race_in_thousands_is_no_time() -> None:
    assert ("wants", "run a 5k") in [(c.predicate, c.object) for c in one("I'd like to run a 5k by June.")]
