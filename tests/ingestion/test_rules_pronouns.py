"""A subject "he" / "she" read as the speaker's relation just named (``rules_pronouns``), and a weekday
put right with "I meant" (``rules_meant``): read, then through all seven phases."""

from __future__ import annotations

import pytest

from ingestion.pipeline import run_inline
from memhq.models import Memory, MemoryStatus, Project
from tests.ingestion.helpers import make_episode
from tests.ingestion.rules_support import ASSISTANT_REPLY, say


def _found(*turns: tuple[str, str]) -> list[tuple[str, str, str]]:
    return [(c.subject, c.predicate, c.object) for c in say(*turns).candidates]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "My aunt moved to Galway last year. She teaches piano there.",
            ("user's aunt", "teach", "piano there"),
        ),
        ("My son Theo just turned 9. He loves chess.", ("Theo", "likes", "chess")),
        ("My dad retired in May. He hates golf, though.", ("user's dad", "dislikes", "golf")),
    ],
)
def test_a_pronoun_is_the_relation_just_named(text: str, expected: tuple[str, str, str]) -> None:
    assert expected in _found(("user", text))


@pytest.mark.parametrize(
    "text",
    [
        "I met my mom's friend yesterday. She runs a bakery.",  # the friend, of no known gender
        "She runs a bakery.",  # nobody named
        "My brother called. She runs a bakery.",  # no woman named
    ],
)
def test_a_pronoun_without_one_relation_of_its_gender_is_nobody(text: str) -> None:
    assert all("bakery" not in obj for _, _, obj in _found(("user", text)))


def test_the_relation_claim_names_the_relation() -> None:
    claims = [c.claim for c in say(("user", "My sister moved to Lisbon. She works as a nurse.")).candidates]
    assert "User's sister works as a nurse." in claims


def test_a_pronoun_corrects_the_relations_home(project: Project) -> None:
    turns = [
        {"role": "user", "content": "My sister lives in Lisbon."},
        {"role": "assistant", "content": "Lovely city."},
        {"role": "user", "content": "Wait, sorry, she lives in Porto, not Lisbon."},
        {"role": "assistant", "content": "Noted."},
    ]
    run_inline(make_episode(project, turns, user_id="u1", timestamp="2026-03-02T10:00:00Z").pk)
    porto = Memory.objects.get(project=project, predicate="lives_in", object_value="Porto")
    assert (porto.subject, porto.status) == ("user's sister", MemoryStatus.ACTIVE)
    lisbon = Memory.objects.filter(project=project, predicate="lives_in", object_value="Lisbon").first()
    assert lisbon is None or lisbon.status != MemoryStatus.ACTIVE


def test_a_weekday_put_right() -> None:
    result = say(
        ("user", "My dentist appointment is on Tuesday."),
        ASSISTANT_REPLY,
        ("user", "Oops, I meant Wednesday."),
    )
    assert [c.claim for c in result.candidates] == ["User's dentist appointment is on 15 May 2024."]
