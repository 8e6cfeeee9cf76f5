"""A thing given up said as "no more" (``rules_given_up``), the speaker's pay (``rules_pay``), a pet named
before a clause ("My dog Rex is old"), verbs in "e" lemmatised, "the office" as no employer: read, then
through all seven phases."""

from __future__ import annotations

import pytest

from ingestion.extractors.rules_nlp import get_nlp, parse_all
from memhq.models import Memory, MemoryStatus, Project
from tests.ingestion.rules_support import one
from tests.ingestion.supersession_support import assert_superseded, ingest_both


def _said(text: str) -> list[tuple[str, str, str]]:
    return [(c.predicate, c.object, c.claim) for c in one(text)]


@pytest.mark.parametrize(
    ("text", "thing", "rest"),
    [
        ("No more soda for me, I switched to sparkling water.", "soda", "User switched to sparkling water."),
        ("I had laser eye surgery in March, no more contact lenses!", "contact lenses", None),
        ("So no more night shifts for me.", "night shifts", None),
        ("No more gluten for us, my husband has celiac disease.", "gluten", None),
    ],
)
def test_no_more_is_a_thing_given_up(text: str, thing: str, rest: str | None) -> None:
    said = _said(text)
    assert ("left", thing, f"User has given up {thing}.") in said
    assert all("More " not in claim and "more " not in claim for _, _, claim in said)  # never "More soda …"
    if rest is not None:
        assert rest in [claim for _, _, claim in said]


@pytest.mark.parametrize(
    "text",
    [
        "No more questions for now, thanks for the help.",  # a pause
        "I have no more questions.",  # "no more" opens no phrase
        "No more than two coffees a day for me.",  # an amount
        "No more emojis, please.",  # what the assistant writes
        "No more excuses!",  # nobody's
    ],
)
def test_no_more_that_gives_nothing_up(text: str) -> None:
    assert all(predicate != "left" for predicate, _, _ in _said(text))


def test_a_thing_given_up_ends_the_habit(project: Project) -> None:
    ingest_both(
        project, "I drink soda with every meal.", "No more soda for me, I switched to sparkling water."
    )
    habit = Memory.objects.get(project=project, text__contains="drinks soda")
    assert_superseded(habit, Memory.objects.get(project=project, predicate="left"))


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("I make 72k a year as a paralegal.", "72k a year"),
        ("I'm making $81,000 now.", "$81,000"),
        ("I earn 38 dollars an hour.", "38 dollars an hour"),
        ("I got a raise to 90k!", "90k"),
        ("My salary is 64k.", "64k"),
        ("My salary went up to €70k in January.", "€70k"),
    ],
)
def test_pay_is_one_predicate(text: str, amount: str) -> None:
    assert [(p, o) for p, o, _ in _said(text) if p == "salary"] == [("salary", amount)]


@pytest.mark.parametrize(
    "text",
    [
        "I make pancakes every Sunday.",
        "I made 50k at my first job.",  # history, not the pay now
        "My pay is awful.",
        "I don't make 100k.",
    ],
)
def test_no_pay_without_an_amount_now(text: str) -> None:
    assert all(predicate != "salary" for predicate, _, _ in _said(text))


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("I make 72k a year.", "I'm making 81k now."),
        ("My salary is 64k.", "I got a raise to 70k."),
        ("I earn $30 an hour.", "My pay went up to $34 an hour."),
    ],
)
def test_a_new_pay_replaces_the_old(project: Project, before: str, after: str) -> None:
    ingest_both(project, before, after)
    old, new = Memory.objects.filter(project=project, predicate="salary").order_by("recorded_at")
    assert_superseded(old, new)


def test_a_pet_named_before_its_clause_is_had() -> None:
    said = _said("My dog Pretzel is getting old.")
    assert ("has_pet", "Pretzel", "User has a dog named Pretzel.") in said


def test_what_a_pet_named_before_its_clause_does_is_its_own() -> None:
    found = [(c.subject, c.predicate, c.object) for c in one("My cat Biscuit hates the vacuum cleaner.")]
    assert ("Biscuit", "dislikes", "vacuum cleaner") in found


@pytest.mark.parametrize(
    ("text", "lemma"),
    [("I hated the ending.", "hate"), ("She hopes to visit.", "hope"), ("I coded it in Go.", "code")],
)
def test_a_verb_in_e_keeps_its_e(text: str, lemma: str) -> None:
    """The rule lemmatizer read "hated" as "hat", "hopes" as "hop" (``rules_nlp.e_verb_lemmas``)."""
    doc = parse_all([text])[0]
    assert lemma in [t.lemma_ for t in doc]
    assert [t.lemma_ for t in get_nlp()("She wears hats.")][-2] == "hat"  # the stem's own forms are its


def test_a_taste_said_in_the_past_is_a_taste() -> None:
    assert ("dislikes", "ending of that series") in [
        (p, o) for p, o, _ in _said("I hated the ending of that series.")
    ]


def test_the_office_is_no_employer(project: Project) -> None:
    assert all(p != "works_at" for p, _, _ in _said("I work at the office on Tuesdays."))
    ingest_both(project, "I work at Halden Logistics.", "I work late nights at the office most weeks.")
    assert Memory.objects.get(project=project, predicate="works_at").status == MemoryStatus.ACTIVE


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My doctor switched me to levothyroxine.", [("user", "uses", "levothyroxine")]),
        ("My GP put me on iron tablets.", [("user", "uses", "iron tablets")]),
        (
            "My doctor switched me from sertraline to fluoxetine.",
            [("user", "uses", "fluoxetine"), ("user", "left", "sertraline")],
        ),
        ("My manager put me on the billing project.", [("user", "assigned_to", "billing project")]),
        ("I traded in my Golf for a Model 3.", [("user", "left", "Golf"), ("user", "uses", "Model 3")]),
    ],
)
def test_put_on_by_another_is_the_speakers(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert [(c.subject, c.predicate, c.object) for c in one(text)] == expected


def test_switched_off_by_a_doctor_ends_the_medicine(project: Project) -> None:
    ingest_both(
        project, "I take sertraline every morning.", "My doctor switched me from sertraline to fluoxetine."
    )
    taken = Memory.objects.get(project=project, text__contains="takes sertraline")
    assert_superseded(taken, Memory.objects.get(project=project, predicate="left"))
