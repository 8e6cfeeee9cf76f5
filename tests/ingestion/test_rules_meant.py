"""A slip corrected in the next message (``ingestion.extractors.rules_meant``): the earlier message is read
again with the value put right, and the slip is never a candidate."""

from __future__ import annotations

import pytest

from ingestion.pipeline import run_inline
from memhq.models import Memory, MemoryStatus, Project
from tests.ingestion.helpers import make_episode
from tests.ingestion.rules_support import say

ACK = ("assistant", "Got it.")


def facts(*turns: tuple[str, str]) -> list[tuple[str, str]]:
    return [(c.predicate, c.object) for c in say(*turns).candidates]


def test_a_number_put_right() -> None:
    said = facts(("user", "I'm 27 and I teach music."), ACK, ("user", "Sorry, I meant 72, typo."))
    assert ("age", "72") in said
    assert ("age", "27") not in said


def test_a_value_named_as_replaced() -> None:
    said = [
        c.claim
        for c in say(("user", "I live in Derby."), ACK, ("user", "I meant Durham, not Derby.")).candidates
    ]
    assert said == ["User lives in Durham."]


def test_the_span_stays_in_the_words_typed() -> None:
    typed = "My nephew is 9 and he loves chess."
    result = say(("user", typed), ACK, ("user", "oops I meant 11"))
    assert {c.source_message_indexes for c in result.candidates} == {(0,)}
    assert all(0 <= c.span_start <= c.span_end <= len(typed) for c in result.candidates)
    assert any(c.object == "11" for c in result.candidates)


@pytest.mark.parametrize(
    "correction",
    [
        "I meant the other one.",  # no value
        "I meant 5.",  # the earlier message has two numbers: which one is not said
        "I meant that I like it.",  # not a value
    ],
)
def test_a_correction_that_names_no_single_value_changes_nothing(correction: str) -> None:
    first = ("user", "I run 3 times a week, about 10 km.")
    assert facts(first, ACK, ("user", correction)) == facts(first, ACK)


def test_the_slip_is_never_stored(project: Project) -> None:
    turns = [("user", "I'm 34 and I live in Leeds."), ACK, ("user", "Sorry, I meant 43, typo.")]
    episode = make_episode(project, [{"role": r, "content": c} for r, c in turns])
    run_inline(episode.pk)
    ages = list(Memory.objects.filter(project=project, predicate="age").values_list("object_value", "status"))
    assert ages == [("43", MemoryStatus.ACTIVE)]
