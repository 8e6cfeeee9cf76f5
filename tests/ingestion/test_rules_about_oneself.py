"""What one tells an assistant about oneself, read by the rules extractor: where and when one was born,
how to reach one, a home rented or moved into, a choice said with "go with", an activity said with its verb
alone, a name corrected; dates a state lasts until, a consequence said with "so". And what only looks like
these."""

from __future__ import annotations

import pytest

from tests.ingestion.rules_support import say
from tests.ingestion.test_rules_own_states import claims, facts


@pytest.mark.parametrize(
    ("text", "wanted", "claim"),
    [
        ("I was born in Glasgow.", [("user", "is_from", "Glasgow")], "User was born in Glasgow."),
        (
            "I was born in Turin on 12 August 1979.",
            [("user", "is_from", "Turin"), ("user", "birthday", "12 August 1979")],
            "User was born in Turin on 12 August 1979.",
        ),
        (
            "I was born and raised in Manitoba.",
            [("user", "is_from", "Manitoba")],
            "User was born and raised in Manitoba.",
        ),
        # the day as said: no year is guessed for a birthday
        ("My son was born on the 2nd of March.", [("user's son", "birthday", "the 2nd of March")], None),
        ("My birthday is October 9.", [("user", "birthday", "October 9")], "User's birthday is October 9."),
        (
            "My birthday is on November 21st.",
            [("user", "birthday", "November 21st")],
            "User's birthday is on November 21st.",
        ),
    ],
)
def test_where_and_when_one_was_born(
    text: str, wanted: list[tuple[str, str, str]], claim: str | None
) -> None:
    assert facts(text) == wanted
    if claim is not None:
        assert claims(text)[0] == claim


@pytest.mark.parametrize(
    ("text", "place"),
    [("I'm from Leeds.", "Leeds"), ("I'm from a small town in Ohio.", "small town in Ohio")],
)
def test_where_one_is_from_though_the_tagger_calls_the_town_a_noun(text: str, place: str) -> None:
    assert facts(text) == [("user", "is_from", place)]


def test_from_what_is_no_place() -> None:
    assert all(predicate != "is_from" for _, predicate, _ in facts("I'm from the marketing team."))


@pytest.mark.parametrize(
    "text",
    ["I was born in the eighties.", "My birthday is a big deal in my family.", "I wasn't born in Oslo."],
)
def test_no_birthplace_or_birthday(text: str) -> None:
    assert all(predicate not in ("is_from", "birthday") for _, predicate, _ in facts(text))


def test_a_time_dropped_from_an_object_takes_its_preposition_along() -> None:
    """ "on sabbatical until February": the object was "on sabbatical until", with the date cut off."""
    found = say(("user", "I'm on sabbatical until the end of February."), ("assistant", "Enjoy!")).candidates
    assert [c.object for c in found] == ["on sabbatical"]
    assert found[0].claim == "User is on sabbatical until the end of February 2025."


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I'm renting a studio in Rotterdam.", ("user", "lives_in", "Rotterdam")),
        ("We rent a small flat in Bristol.", ("user", "lives_in", "Bristol")),
        ("We've been renting a flat in Ghent since 2021.", ("user", "lives_in", "Ghent")),
        ("We bought a house in Maine and moved in last week.", ("user", "lives_in", "Maine")),
    ],
)
def test_a_home_rented_or_moved_into(text: str, wanted: tuple[str, str, str]) -> None:
    assert wanted in facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "I rented a car in Porto.",  # no home
        "We're renting a villa in Crete in August.",  # a trip with its dates
        "I bought a flat in Valencia.",  # perhaps to let: nothing says one lives there
    ],
)
def test_a_rental_or_purchase_that_is_no_home(text: str) -> None:
    assert all(predicate != "lives_in" for _, predicate, _ in facts(text))


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I'm down to 71 kg now.", ("user", "weight", "71 kg")),
        ("I upgraded to premium.", ("user", "subscription_plan", "premium")),
    ],
)
def test_a_weight_or_a_tier_said_short(text: str, wanted: tuple[str, str, str]) -> None:
    assert facts(text) == [wanted]


def test_a_same_form_past_before_now_stays_past() -> None:
    assert claims("I quit nursing and now I teach yoga.")[0] == "User quit nursing."


@pytest.mark.parametrize(
    ("text", "chosen"),
    [
        ("I'll go with the Fairphone 5.", "Fairphone 5"),
        ("We went with the cheaper quote.", "cheaper quote"),
        ("I'm sticking with Vim.", "Vim"),
    ],
)
def test_a_choice_said_with_go_or_stick_with(text: str, chosen: str) -> None:
    assert facts(text) == [("user", "decided", chosen)]


@pytest.mark.parametrize(
    "text",
    [
        "I went with my cousin to the museum.",
        "I'm going with Dilnoza.",  # whom one goes with, as far as the words tell
        "I'll go with the flow.",
        "I usually go with oat milk.",
    ],
)
def test_going_with_what_is_no_choice(text: str) -> None:
    assert all(predicate != "decided" for _, predicate, _ in facts(text))


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("My email is kofi@example.net.", ("user", "email_address", "kofi@example.net")),
        ("Please use my new email kofi.m@example.org.", ("user", "email_address", "kofi.m@example.org")),
        ("My new number is 555-0173.", ("user", "phone_number", "555-0173")),
        ("You can reach me at +31 6 1234 5678.", ("user", "phone_number", "+31 6 1234 5678")),
    ],
)
def test_how_to_reach_the_speaker(text: str, wanted: tuple[str, str, str]) -> None:
    assert facts(text) == [wanted]


@pytest.mark.parametrize(
    "text",
    [
        "My brother's email is ama@example.net.",
        "My old number was 555-0101.",
        "My work email is kofi@corp.example.",
        "My lucky number is 7.",
    ],
)
def test_what_is_no_current_contact_of_the_speakers(text: str) -> None:
    assert all(predicate not in ("email_address", "phone_number") for _, predicate, _ in facts(text))


def test_an_ending_said_as_a_consequence_ends_only_its_own_thing() -> None:
    """ "so I don't … anymore" was read with the clause before it: "no longer lives in Tulsa"."""
    found = facts("I moved to Tulsa, so I don't go to that climbing gym anymore.")
    assert ("user", "lives_in", "Tulsa") in found
    assert all(not (predicate.startswith("no_longer") and "Tulsa" in obj) for _, predicate, obj in found)


def test_a_purpose_said_with_so_stays_in_its_clause() -> None:
    assert claims("I'm saving up so I can buy a kayak.") == ["User is saving up so User can buy a kayak."]


def test_an_instruction_whose_verb_reads_as_a_past() -> None:
    """ "put" after "Always" was tagged a past participle: no imperative, no instruction."""
    assert facts("Always put the summary first.") == [
        ("user", "instructs_assistant", "always put the summary first")
    ]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I live in Hobart, if that helps.", ("user", "lives_in", "Hobart")),
        ("My email is ravi@example.com if you need it.", ("user", "email_address", "ravi@example.com")),
        ("For the desk lamp I'll go with the BenQ one.", ("user", "decided", "BenQ one")),
    ],
)
def test_a_statement_with_a_condition_of_the_listeners(text: str, wanted: tuple[str, str, str]) -> None:
    """ "if you need it" / "if that helps" is the listener's use of the statement, not a condition of it."""
    assert wanted in facts(text)


def test_a_condition_of_the_speakers_still_holds_the_statement_back() -> None:
    assert facts("I'll move to Perth if I get the job.") == []


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I swim every morning.", [("user", "hobby", "swimming")]),
        ("I hike most weekends.", [("user", "hobby", "hiking")]),
        ("My son skis every winter.", [("user's son", "hobby", "skiing")]),
        ("I don't jog anymore.", [("user", "no_longer_hobby", "jogging")]),
    ],
)
def test_an_activity_said_with_its_verb_alone(text: str, wanted: list[tuple[str, str, str]]) -> None:
    """These stored nothing: no object, and words of time are no content words."""
    assert facts(text) == wanted


@pytest.mark.parametrize(
    "text", ["I run a food truck.", "I cycle to the office.", "I can swim.", "I swam yesterday."]
)
def test_what_is_no_activity_of_ones_own(text: str) -> None:
    assert all(predicate != "hobby" for _, predicate, _ in facts(text))


def test_married_to_the_name_said_before_and_i() -> None:
    """ "Bea and I got married" stored the status only: the spouse was no one."""
    assert facts("Bea and I got married last spring.") == [
        ("user", "relationship_status", "married"),
        ("user", "spouse", "Bea"),
    ]


def test_a_name_said_as_a_correction_is_marked_so() -> None:
    assert (
        claims("Sorry, I misspoke: my brother's name is Jonas.")[-1] == "User's brother is Jonas (corrected)."
    )
    assert claims("My brother's name is Jonas, I mean it.") == ["User's brother is Jonas."]
    # the words about the words are no memory: it was "User misspoke: User's brother's name is Jonas."
    assert claims("Sorry, I misspoke: my brother's name is Jonas.") == [
        "User's brother is Jonas (corrected)."
    ]


def test_each_name_of_a_plural_relation() -> None:
    """ "My sisters are Maren and Ilse" stored Maren only."""
    assert facts("My sisters are Maren and Ilse.") == [
        ("user", "sibling", "Maren"),
        ("user", "sibling", "Ilse"),
    ]
