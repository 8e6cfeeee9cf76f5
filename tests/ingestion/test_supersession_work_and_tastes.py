"""``test_rules_work_and_tastes`` through all seven phases: working for oneself replaces the employer, a
return to the office replaces working from home, a preference against another thing ends the preference of
that thing, a habit denied then taken up (or the other way round), a break-up, a thing under way now done.
And a preference without one leaves the other."""

from __future__ import annotations

import pytest

from memhq.models import Memory, MemoryStatus, Project
from tests.ingestion.supersession_support import assert_new_value, assert_superseded, ingest_both, memory


@pytest.mark.parametrize(
    ("before", "after", "predicate", "old", "new"),
    [
        ("I work at Brightwell.", "I'm self-employed now.", "works_at", "Brightwell", "self-employed"),
        ("I work at Orrin Labs.", "I went freelance last month.", "works_at", "Orrin Labs", "self-employed"),
        (
            "I work from home.",
            "My company called everyone back to the office.",
            "work_setting",
            "remote",
            "in the office",
        ),
        (
            "I'm fully remote.",
            "We have to be in the office three days a week now.",
            "work_setting",
            "remote",
            "hybrid",
        ),
        ("I prefer green tea.", "I prefer coffee over green tea now.", "prefers", "green tea", "coffee"),
        ("I prefer trains.", "I prefer flying to trains these days.", "prefers", "trains", "flying"),
        ("I live alone.", "I moved back in with my parents.", "lives_with", "alone", "User's parents"),
        ("I'm dating Ilan.", "We broke up.", "relationship_status", "dating", "single"),
        (
            "I'm using Django 4.1 for the API.",
            "Correction: it's Django 4.2, not 4.1.",
            "uses",
            "Django 4.1",
            "Django 4.2",
        ),
    ],
)
def test_a_new_value_replaces_the_old(
    project: Project, before: str, after: str, predicate: str, old: str, new: str
) -> None:
    assert_new_value(project, before, after, predicate, old, new)


def test_a_preference_against_another_thing_leaves_the_first(project: Project) -> None:
    ingest_both(project, "I prefer green tea.", "I prefer coffee over juice.")
    assert memory(project, "prefers", "green tea").status == MemoryStatus.ACTIVE
    assert memory(project, "prefers", "coffee").status == MemoryStatus.ACTIVE


def test_a_thing_under_way_then_done(project: Project) -> None:
    ingest_both(project, "I'm paying off my car loan.", "I finally paid off my car loan!")
    old = Memory.objects.get(project=project, text__contains="is paying off")
    new = Memory.objects.get(project=project, text__contains="finally paid off")
    assert_superseded(old, new)


def test_a_thing_done_twice_is_said_again(project: Project) -> None:
    ingest_both(project, "I'm reading Dune.", "I'm reading Dune again.")
    assert memory(project, "read", "Dune").status == MemoryStatus.ACTIVE


def test_a_break_up_ends_the_partner(project: Project) -> None:
    ingest_both(project, "I'm dating Ilan.", "Ilan and I broke up.")
    assert memory(project, "partner", "Ilan").status == MemoryStatus.SUPERSEDED


@pytest.mark.parametrize(
    ("before", "after", "old", "new", "gerund"),
    [
        ("I don't drink.", "I started drinking again.", "not_drink", "drink", "drinking"),
        ("I smoke.", "I don't smoke.", "smoke", "not_smoke", "smoking"),
    ],
)
def test_a_habit_denied_then_taken_up(
    project: Project, before: str, after: str, old: str, new: str, gerund: str
) -> None:
    ingest_both(project, before, after)
    assert_superseded(memory(project, old, gerund), memory(project, new, gerund))
