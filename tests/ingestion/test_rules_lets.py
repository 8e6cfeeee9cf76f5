"""A choice the user announces with "let's" is a decision about their own work (``rules_lets``)."""

from __future__ import annotations

import pytest

from tests.ingestion.rules_support import say


def claims(text: str) -> list[tuple[str, str, str]]:
    result = say(("user", text), ("assistant", "Sounds good."))
    return [(c.kind, c.predicate, c.claim) for c in result.candidates]


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("Let's use Tailwind for the styling.", "User will use Tailwind for the styling."),
        ("Ok, let's go with Postgres then.", "User will go with Postgres."),
        ("Let's stick with Vite.", "User will stick with Vite."),
        ("Let's switch to GitLab CI.", "User will switch to GitLab CI."),
        ("Let's book the flights for next Friday.", "User will book the flights for 17 May 2024."),
        # "let's" looks forward: a bare date said in May is the coming June, not last year's
        ("Let's schedule the launch for June 3rd.", "User will schedule the launch for 3 June 2024."),
    ],
)
def test_lets_with_a_verb_of_choosing_is_a_decision(text: str, claim: str) -> None:
    assert claims(text) == [("decision", "plans_to", claim)]


@pytest.mark.parametrize(
    "text",
    [
        "Let's see how it goes.",
        "Let's go through the proof step by step.",
        "Let's focus on the inductive step.",
        "Let's move on to the next question.",
        "Let's keep it short.",
        "Let's use a loop here.",  # a step of the answer being written
        "Let's go home.",  # "go" without "with"
        "Let's go with that.",  # what the assistant proposed: rules_accepted reads it with that turn
        "Let's use the formula you gave.",  # the assistant's words, used in the answer
        "Let's go with the next exercise.",  # nothing named or dated: "move on"
        "Let's book a table.",  # scheduling, but no date
    ],
)
def test_lets_that_directs_the_conversation_is_no_decision(text: str) -> None:
    assert not [claim for kind, _, claim in claims(text) if kind == "decision"]
