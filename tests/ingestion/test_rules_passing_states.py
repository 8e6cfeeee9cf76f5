"""What holds for a while, or is a figure of speech, not the user's state: a task in progress ("I'm working on
the login page": one of several, not the line of work ``works_on``), where one is right now ("I'm at Starbucks
right now": no employer), one night's bedtime ("I'm going to bed at 2am tonight": no routine), "I live in fear
of deadlines" (no home), "I work at night" (no employer), "my name is not important", "married to the idea of
…". Each of those predicates is single-valued, so reading them wrongly ended the true value."""

from __future__ import annotations

import pytest

from memhq.models import Memory, Project
from tests.ingestion.rules_support import one
from tests.ingestion.supersession_support import ingest_both


def predicates(text: str) -> list[tuple[str, str]]:
    return [(c.predicate, c.object) for c in one(text)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("I'm working on the login page.", ("working_on", "login page")),
        ("I've been working on the payments API.", ("working_on", "payments API")),
        ("I work on B2B SaaS for dentists.", ("works_on", "B2B SaaS")),  # the line of work
    ],
)
def test_a_task_in_progress_is_not_the_line_of_work(text: str, found: tuple[str, str]) -> None:
    assert found in predicates(text)


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("I'm at Starbucks right now.", "works_at"),
        ("I'm at the Hilton today.", "works_at"),
        ("I'm going to bed at 2am tonight.", "bedtime"),
        ("I'm getting up at 5 tomorrow for the flight.", "wakes_up"),
    ],
)
def test_where_one_is_or_one_nights_hour_is_no_state(text: str, predicate: str) -> None:
    assert not [p for p, _ in predicates(text) if p == predicate]


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("I live in fear of deadlines.", "lives_in"),
        ("I live in the moment.", "lives_in"),
        ("I work at night.", "works_at"),
        ("I work at a fast pace.", "works_at"),
        ("My name is not important.", "name"),
        ("I'm married to the idea of moving abroad.", "relationship_status"),
        ("I'm married to the idea of moving abroad.", "spouse"),
        ("I'm separated from the rest of the team this week.", "relationship_status"),
        ("I work as a team with my brother.", "job_title"),
    ],
)
def test_a_figure_of_speech_is_no_home_employer_or_name(text: str, predicate: str) -> None:
    assert not [p for p, _ in predicates(text) if p == predicate]


def test_the_lasting_forms_still_are() -> None:
    assert ("lives_in", "van") in predicates("I live in a van.")
    assert ("lives_in", "suburbs") in predicates("I live in the suburbs.")
    assert ("works_at", "hospital") in predicates("I work at a hospital.")
    assert ("works_at", "self-employed") in predicates("I work for myself.")
    assert ("relationship_status", "separated") in predicates("I'm separated from my husband.")
    assert ("spouse", "Tom") in predicates("I'm married to Tom.")
    assert ("works_at", "Google") in predicates("I'm at Google now.")
    assert ("bedtime", "11") in predicates("I go to bed around 11.")


def test_tasks_in_progress_leave_the_line_of_work_and_each_other(project: Project) -> None:
    ingest_both(
        project, "I work on B2B SaaS. I'm working on the login page.", "I'm working on the payments API."
    )
    live = Memory.objects.filter(project=project, status="active")
    assert {m.object_value for m in live if m.predicate in ("works_on", "working_on")} == {
        "B2B SaaS",
        "login page",
        "payments API",
    }


def test_stopping_a_task_ends_it(project: Project) -> None:
    ingest_both(project, "I'm working on the login page.", "I stopped working on the login page.")
    task = Memory.objects.get(project=project, predicate="working_on")
    assert task.status == "superseded"
