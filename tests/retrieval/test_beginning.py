"""A question about how things began also searches the user's earliest messages (retrieval/beginning.py and
the time signal), through the real pipeline."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from memhq.models import Project
from retrieval.beginning import asks_for_beginning
from tests.retrieval.test_recall_signals import episode, items


@pytest.mark.parametrize(
    "question",
    [
        "Which editor was I using when I first described my setup?",
        "What was my original budget for the trip?",
        "How big was the team at the start?",
        "Which libraries did I say I was using to start my project?",
        "When did Priya get her first bicycle?",
        "What did I plan initially for the garden?",
        "What was the first time I mentioned the boat?",
    ],
)
def test_questions_about_a_beginning(question: str) -> None:
    assert asks_for_beginning(question)


@pytest.mark.parametrize(
    "question",
    [
        "Can you prove the sum of the first n odd numbers equals n squared?",
        "Which team won first place?",
        "Was the first half of May busy?",
        "What did I do at the beginning of March?",
        "How did you start the day?",
        "What is my first name?",
        "Where is our first-aid kit?",
        "What is my current budget?",
    ],
)
def test_ordinals_dates_and_the_present_are_not_beginnings(question: str) -> None:
    assert not asks_for_beginning(question)


def test_a_question_about_the_start_finds_the_first_thing_said(project: Project, api: APIClient) -> None:
    versions = ["3.9", "3.10", "3.11", "3.12", "3.13"]
    for month, version in enumerate(versions, start=1):
        turns = [("user", f"My service runs on Python {version} and the tests pass on it.")]
        turns += [("user", f"Note {n}: the build server queue was long today.") for n in range(25)]
        episode(project, turns, f"2024-{month:02d}-10T09:00:00Z")
    asked = "Which Python version did my service run on at the start?"
    found = items(api, asked)
    assert "3.9" in found[0]["text"] and "time" in found[0]["ranks"], found[:3]
    assert found[0]["provenance"]["message_ids"] == ["2024-01-10-0"], found[:3]
    # The first value has since changed: a question about the beginning searches what changed too.
    first = [item for item in found if item["type"] == "memory" and "3.9" in item["text"]]
    assert first and first[0]["status"] == "superseded", found
    # Without the words about a beginning, the time signal has no window and finds nothing.
    plain = items(api, "Which Python version does my service run on?")
    assert not [item for item in plain if "time" in item["ranks"]]
