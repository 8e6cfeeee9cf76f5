"""What the rules extractor reads in a polite request about the form of every answer ("Please use metric
units"), a plan called off (``rules_cancellations``) and an amount someone else changed ("My landlord raised
the rent to …", ``rules_settings``). And what only looks like these."""

from __future__ import annotations

import pytest

from tests.ingestion.rules_support import one, say


def facts(text: str) -> list[tuple[str, str]]:
    return [(c.predicate, c.object) for c in one(text)]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("Please use metric units.", "use metric units"),
        ("Please answer in Portuguese.", "answer in Portuguese"),
        ("Reply in Portuguese, please.", "reply in Portuguese"),
        ("Please keep your replies brief.", "keep the assistant's replies brief"),
        ("Please use Celsius for temperatures.", "use Celsius for temperatures"),
        ("Please use bullet points.", "use bullet points"),
        ("Please use shorter sentences.", "use shorter sentences"),
    ],
)
def test_a_polite_request_about_the_form_of_answers_is_a_standing_instruction(text: str, wanted: str) -> None:
    found = say(("user", text), ("assistant", "Noted.")).candidates
    assert [(c.predicate, c.object) for c in found] == [("instructs_assistant", wanted)]
    assert found[0].claim == f"User wants the assistant to {wanted}."


@pytest.mark.parametrize(
    "text",
    [
        "Please translate this into Portuguese.",  # one thing at hand
        "Please write the cover letter in formal English.",  # one piece of writing
        "Please explain the difference between the two.",
        "Please write shorter paragraphs in this essay.",
        "Please use the metric version of the recipe above.",
        "Use metric units.",  # no "please": a request about one answer as often as a rule
    ],
)
def test_a_one_off_request_is_no_instruction(text: str) -> None:
    assert not [c for c in one(text) if c.predicate == "instructs_assistant"]


@pytest.mark.parametrize(
    ("text", "thing", "claim"),
    [
        ("I had to cancel the Porto trip.", "Porto trip", "User had to cancel the Porto trip."),
        ("We called off the engagement party.", "engagement party", "User called off the engagement party."),
        ("I cancelled my climbing gym membership.", "climbing gym membership", None),
        ("My train got cancelled.", "train", "User's train got cancelled."),
        (
            "The airline cancelled my flight to Oslo.",
            "flight",
            "The airline cancelled User's flight to Oslo.",
        ),
    ],
)
def test_a_plan_called_off(text: str, thing: str, claim: str | None) -> None:
    found = [c for c in one(text) if c.predicate == "cancelled"]
    assert [c.object for c in found] == [thing]
    if claim is not None:
        assert found[0].claim == claim


@pytest.mark.parametrize(
    "text",
    [
        "I'm going to cancel my streaming subscription.",  # not done yet
        "I didn't cancel the trip.",
        "They cancelled the concert.",  # not the speaker's
        "I cancelled it.",  # no thing named
    ],
)
def test_what_only_looks_like_a_plan_called_off(text: str) -> None:
    assert not [c for c in one(text) if c.predicate == "cancelled"]


@pytest.mark.parametrize(
    ("text", "subject", "value"),
    [
        ("My landlord raised the rent to $2,050.", "user's rent", "$2,050"),
        ("My doctor increased my dose to 40mg.", "user's dose", "40mg"),
        ("My boss bumped my salary up to 95k.", "user's salary", "95k"),
    ],
)
def test_an_amount_of_the_speakers_set_by_someone_of_theirs(text: str, subject: str, value: str) -> None:
    found = [(c.subject, c.object) for c in one(text) if c.predicate == "is"]
    assert found == [(subject, value)]


def test_an_amount_someone_else_set_for_no_one_of_the_speakers_is_no_value() -> None:
    assert not [c for c in one("They raised the prices to $50.") if c.predicate == "is"]
    assert not [c for c in one("My doctor increased my dose to 40mg.") if c.subject == "user's doctor"]


@pytest.mark.parametrize(
    ("text", "tier"),
    [
        ("I'm on the Starter plan.", "Starter plan"),
        ("We're on the free tier for now.", "free tier"),
        ("I upgraded to the Pro plan yesterday.", "Pro plan"),
        ("I downgraded to the Basic tier.", "Basic tier"),
        ("I switched to the annual subscription.", "annual subscription"),
        ("I signed up for the Family plan.", "Family plan"),
        ("I have the Premium plan.", "Premium plan"),
    ],
)
def test_the_plan_or_tier_of_a_service(text: str, tier: str) -> None:
    assert ("subscription_plan", tier) in facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm on a training plan for the marathon.",  # a plan, not a tier
        "I have a business plan.",
        "I've got a basic plan in place.",  # an outline
        "I'm not on the Pro plan.",
        "I'm on a plan.",
    ],
)
def test_what_is_no_tier(text: str) -> None:
    assert not [f for f in facts(text) if f[0] == "subscription_plan"]


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("I'm on Eastern time now since the move.", "Eastern"),
        ("My timezone is Pacific.", "Pacific"),
        ("My time zone is UTC+2.", "UTC+2"),
        ("I'm in the Central time zone.", "Central"),
        ("I'm on CET these days.", "CET"),
    ],
)
def test_the_speakers_time_zone(text: str, zone: str) -> None:
    assert ("timezone", zone) in facts(text)


@pytest.mark.parametrize(
    "text", ["I'm on island time this week.", "I'm in Boston.", "My sister's time zone is CET."]
)
def test_what_is_no_time_zone_of_the_speakers(text: str) -> None:
    assert not [c for c in one(text) if c.predicate == "timezone" and c.subject == "user"]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("Can you stop using so many exclamation marks?", "never use so many exclamation marks"),
        ("Could you please stop suggesting recipes with pork?", "never suggest recipes with pork"),
        ("I'd rather you didn't suggest hotels near the airport.", "never suggest hotels near the airport"),
        ("I would prefer you not use emojis.", "never use emojis"),  # was "prefers emojis": the opposite
        ("I don't want you to recommend hostels.", "never recommend hostels"),
        ("I'd prefer it if you didn't add disclaimers.", "never add disclaimers"),  # no "prefers it"
        ("When I ask for a query, use PostgreSQL syntax.", "use PostgreSQL syntax"),
        ("If I send you a recipe, list the ingredients first.", "list the ingredients first"),
    ],
)
def test_a_request_asked_or_put_politely_is_a_standing_instruction(text: str, wanted: str) -> None:
    found = say(("user", text), ("assistant", "Sure.")).candidates
    assert [(c.predicate, c.object) for c in found] == [("instructs_assistant", wanted)]


@pytest.mark.parametrize(
    "text",
    [
        "Can you stop the timer?",  # no verb of what the assistant writes
        "Can you help me with my essay?",
        "When you get a chance, write the summary.",  # a condition about the assistant: one request
        "I'd rather you didn't tell my sister.",
        "I'd prefer it if you didn't call me after nine.",
        "I don't want you to worry.",
    ],
)
def test_a_request_that_is_no_standing_instruction(text: str) -> None:
    found = say(("user", text), ("assistant", "Sure.")).candidates
    assert all(c.predicate != "instructs_assistant" for c in found)
