"""States the rules extractor reads with their own modules (``rules_states``): dating someone, the usual way
to work, the grade at school, eating again what a diet leaves out; and a name said as "my name's …", "I am"
rewritten as "User is", a break-up said "Lena and I broke up". And what only looks like these."""

from __future__ import annotations

import pytest

from tests.ingestion.rules_support import say


def facts(text: str) -> list[tuple[str, str, str]]:
    return [
        (c.subject, c.predicate, c.object) for c in say(("user", text), ("assistant", "Okay.")).candidates
    ]


def claims(text: str) -> list[str]:
    return [c.claim for c in say(("user", text), ("assistant", "Okay.")).candidates]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I've been seeing someone.", [("user", "relationship_status", "dating")]),
        ("I'm dating someone new.", [("user", "relationship_status", "dating")]),
        (
            "I'm seeing someone now, her name is Lena.",
            [("user", "partner", "Lena"), ("user", "relationship_status", "dating")],
        ),
        (
            "I started seeing a woman named Lena.",
            [("user", "partner", "Lena"), ("user", "relationship_status", "dating")],
        ),
        ("I'm dating Lena.", [("user", "partner", "Lena"), ("user", "relationship_status", "dating")]),
        (
            "I have a boyfriend now.",
            [("user", "partner", "boyfriend"), ("user", "relationship_status", "in a relationship")],
        ),
    ],
)
def test_dating_someone_is_a_relationship_status(text: str, wanted: list[tuple[str, str, str]]) -> None:
    assert facts(text) == wanted


def test_a_partner_named_after_the_clause_is_in_the_claim() -> None:
    assert claims("I'm seeing someone now, her name is Lena.")[0] == "User is dating Lena."


@pytest.mark.parametrize(
    "text",
    [
        "I'm seeing a therapist.",  # an appointment
        "I'm seeing Lena tomorrow.",  # a meeting
        "I saw someone at the gym.",
        "I'm not seeing anyone.",
    ],
)
def test_seeing_someone_that_is_no_relationship(text: str) -> None:
    assert all(predicate not in ("relationship_status", "partner") for _, predicate, _ in facts(text))


@pytest.mark.parametrize(
    ("text", "way"),
    [
        ("I take the tram to work every day.", "tram"),
        ("I cycle to the office now.", "bike"),
        ("I walk to work.", "on foot"),
        ("I usually drive to work.", "car"),
        ("I commute by train.", "train"),
        ("I ride my bicycle to work these days.", "bike"),
        ("I get to school by bus.", "bus"),
        ("I've been biking to work.", "bike"),
    ],
)
def test_the_usual_way_to_work_is_commutes_by(text: str, way: str) -> None:
    assert ("user", "commutes_by", way) in facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "I drove to work today.",  # one day
        "I took the train to work.",  # a past trip
        "I take the train to Leeds on Fridays.",  # not to work
        "I walk my dog to the park.",
    ],
)
def test_a_trip_that_is_not_the_usual_way_to_work(text: str) -> None:
    assert all(predicate != "commutes_by" for _, predicate, _ in facts(text))


@pytest.mark.parametrize(
    ("text", "subject", "grade"),
    [
        ("My daughter is in 2nd grade.", "user's daughter", "2nd grade"),
        ("My daughter started 3rd grade this week.", "user's daughter", "3rd grade"),
        ("My son is a fifth grader.", "user's son", "fifth grade"),
        ("I'm in the 10th grade.", "user", "10th grade"),
    ],
)
def test_the_grade_at_school(text: str, subject: str, grade: str) -> None:
    assert (subject, "grade", grade) in facts(text)


@pytest.mark.parametrize("text", ["I got a good grade.", "My son is in the top grade of his class."])
def test_a_grade_that_is_no_school_year(text: str) -> None:
    assert all(predicate != "grade" for _, predicate, _ in facts(text))


@pytest.mark.parametrize(
    ("text", "diet"),
    [
        ("I started eating chicken again.", "eats chicken"),
        ("I'm eating fish again.", "eats fish"),
        ("I went back to eating dairy.", "eats dairy"),
    ],
)
def test_eating_again_what_a_diet_leaves_out_is_a_diet(text: str, diet: str) -> None:
    assert ("user", "diet", diet) in facts(text)


@pytest.mark.parametrize(
    "text", ["I started eating more fish.", "I eat fish.", "I haven't started eating meat again."]
)
def test_eating_that_leaves_no_diet(text: str) -> None:
    assert all(predicate != "diet" for _, predicate, _ in facts(text))


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("My name's Tomas Berg.", ("user", "name", "Tomas Berg")),
        ("Hi! My name's Tomas and I'm a pharmacist.", ("user", "name", "Tomas")),
        ("My brother's name's Emil.", ("user", "sibling", "Emil")),
    ],
)
def test_a_name_said_with_name_s(text: str, wanted: tuple[str, str, str]) -> None:
    assert wanted in facts(text)


@pytest.mark.parametrize("text", ["The name's Bond.", "My name's not important."])
def test_name_s_that_names_no_one(text: str) -> None:
    assert all(predicate != "name" for _, predicate, _ in facts(text))


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("I am a pharmacist.", "User is a pharmacist."),
        ("We are moving to Tallinn.", "User is moving to Tallinn."),
    ],
)
def test_i_am_is_user_is(text: str, claim: str) -> None:
    assert claims(text) == [claim]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I live with my grandparents.", ("user", "lives_with", "User's grandparents")),
        ("I live alone now.", ("user", "lives_with", "alone")),
        ("I live on my own.", ("user", "lives_with", "alone")),
        ("I live with two flatmates.", ("user", "lives_with", "two flatmates")),
        ("My father lives with us now.", ("user's father", "lives_with", "User")),
        ("I moved in with my girlfriend.", ("user", "lives_with", "User's girlfriend")),
    ],
)
def test_whom_one_lives_with(text: str, wanted: tuple[str, str, str]) -> None:
    assert wanted in facts(text)


@pytest.mark.parametrize(
    "text", ["I live with chronic pain.", "I lived with flatmates at university.", "I live in Bristol."]
)
def test_living_with_no_one(text: str) -> None:
    assert all(predicate != "lives_with" for _, predicate, _ in facts(text))


@pytest.mark.parametrize(
    "text", ["I live in Sheffield with my husband.", "I live with my husband in Sheffield."]
)
def test_where_and_with_whom_in_one_clause(text: str) -> None:
    """The town is the home and the husband the household, however the parser hangs one under the other
    (the home was "Sheffield with User's husband", or the household "User's husband in Sheffield")."""
    found = facts(text)
    assert ("user", "lives_in", "Sheffield") in found
    assert ("user", "lives_with", "User's husband") in found


def test_each_of_two_named_pets_or_relations_had() -> None:
    found = say(
        ("user", "I have a cat named Pippa and a dog named Rufus."), ("assistant", "Cute!")
    ).candidates
    assert [(c.predicate, c.object, c.claim) for c in found][1] == (
        "has_pet",
        "Rufus",
        "User has a dog named Rufus.",
    )
    assert [c.object for c in found] == ["Pippa", "Rufus"]
    unnamed = say(("user", "I have two sons and a daughter."), ("assistant", "Lovely.")).candidates
    assert [c.object for c in unnamed] == ["son"]  # the daughter is in the clause's own claim


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (
            "I've been at Kestrel Labs for two years as a data analyst.",
            [("user", "works_at", "Kestrel Labs"), ("user", "job_title", "data analyst")],
        ),
        (
            "I'm at Kestrel as a designer.",
            [("user", "works_at", "Kestrel"), ("user", "job_title", "designer")],
        ),
        ("I've been at Kestrel since 2022.", [("user", "works_at", "Kestrel")]),
    ],
)
def test_an_employer_one_is_at(text: str, wanted: list[tuple[str, str, str]]) -> None:
    assert facts(text) == wanted


def test_a_job_as_a_title_at_an_employer() -> None:
    wanted = [("user", "works_at", "Lindqvist Dental"), ("user", "job_title", "hygienist")]
    assert facts("I got a new job as a hygienist at Lindqvist Dental.") == wanted


@pytest.mark.parametrize(
    "text",
    [
        "I'm at Starbucks right now.",
        "I've been at Legoland for three days.",
        "I was at Kestrel for five years.",
    ],
)
def test_being_at_a_place_is_no_employer(text: str) -> None:
    assert all(predicate != "works_at" for _, predicate, _ in facts(text))


@pytest.mark.parametrize(
    "text", ["I'm unemployed right now.", "I'm between jobs.", "I'm out of work at the moment."]
)
def test_being_without_a_job_ends_the_employer(text: str) -> None:
    assert facts(text) == [("user", "no_longer_works_at", "")]


@pytest.mark.parametrize(
    "text", ["I was unemployed for a year.", "I'm out of coffee.", "I'm not unemployed."]
)
def test_what_is_not_being_without_a_job(text: str) -> None:
    assert all(predicate != "no_longer_works_at" for _, predicate, _ in facts(text))


@pytest.mark.parametrize(
    ("text", "diet"),
    [
        ("I'm on the paleo diet.", "paleo"),
        ("I'm on a low-carb diet now.", "low-carb"),
        ("I'm on keto.", "keto"),
    ],
)
def test_a_diet_one_is_on(text: str, diet: str) -> None:
    assert facts(text) == [("user", "diet", diet)]


@pytest.mark.parametrize("text", ["I'm on a diet.", "I was on a keto diet last year.", "I'm on the phone."])
def test_on_no_named_diet(text: str) -> None:
    assert all(predicate != "diet" for _, predicate, _ in facts(text))


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("My doctor took me off lisinopril.", ("user", "left", "lisinopril")),
        ("I came off antidepressants in May.", ("user", "left", "antidepressants")),
        ("I stopped doing pilates.", ("user", "left", "pilates")),
        ("I gave up on learning Greek.", ("user", "no_longer_studies", "Greek")),
    ],
)
def test_what_one_went_off_or_gave_up(text: str, wanted: tuple[str, str, str]) -> None:
    assert facts(text) == [wanted]


@pytest.mark.parametrize(
    "text", ["The alarm went off.", "I went off on a rant.", "My phone came off the charger."]
)
def test_off_that_ends_nothing(text: str) -> None:
    assert all(predicate != "left" for _, predicate, _ in facts(text))


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I traded in my Corolla for a Kona.", [("user", "left", "Corolla"), ("user", "uses", "Kona")]),
        ("I swapped my Kindle for a Kobo.", [("user", "left", "Kindle"), ("user", "uses", "Kobo")]),
        ("I've been promoted to team lead.", [("user", "job_title", "team lead")]),
        ("I'm back to eating meat.", [("user", "diet", "eats meat")]),
        ("I'm not on keto anymore.", [("user", "no_longer_diet", "keto")]),
    ],
)
def test_more_ways_a_thing_changes(text: str, wanted: list[tuple[str, str, str]]) -> None:
    assert facts(text) == wanted


def test_a_trade_with_someone_is_no_new_thing() -> None:
    assert all(predicate not in ("uses", "left") for _, predicate, _ in facts("I traded shifts with Ana."))


def test_a_same_form_past_dated_ago_stays_past() -> None:
    assert claims("I quit smoking two years ago.")[0].startswith("User quit smoking in ")


def test_a_break_up_said_name_first() -> None:
    found = say(("user", "Lena and I broke up last week."), ("assistant", "I'm sorry.")).candidates
    assert [(c.predicate, c.object) for c in found] == [
        ("no_longer_partner", ""),
        ("left", "Lena"),
        ("relationship_status", "single"),
    ]
    assert found[0].claim.startswith("Lena and User broke up")
