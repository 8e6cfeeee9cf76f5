"""``test_rules_work_and_tastes`` through all seven phases: working for oneself replaces the employer, a
return to the office replaces working from home, a preference against another thing ends the preference of
that thing. And a preference without one leaves the other."""

from __future__ import annotations

import pytest

from memhq.models import MemoryStatus, Project
from tests.ingestion.supersession_support import assert_new_value, ingest_both, memory


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
