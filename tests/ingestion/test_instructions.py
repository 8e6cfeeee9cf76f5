"""Standing instructions to the assistant (``ingestion.extractors.rules_instructions``): "Always …",
"Never …", "From now on, …" become one preference memory in the user's words; the instruction's
condition ("when I ask about …") is not a fact about the user; look-alikes are not instructions."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from ingestion.pipeline import run_inline
from memhq.models import Memory, Project
from tests.ingestion.helpers import make_episode
from tests.ingestion.rules_support import ASSISTANT_REPLY, say
from tests.ingestion.rules_support import told as claims

ASSISTANT = ASSISTANT_REPLY


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Always give me a shell one-liner when I ask about log rotation.",
            "When User asks about log rotation, User wants the assistant to always give User a shell "
            "one-liner.",
        ),
        (  # the condition said first
            "When I ask about recipes, always answer in Spanish.",
            "When User asks about recipes, User wants the assistant to always answer in Spanish.",
        ),
        (
            "If I paste code, never rewrite the whole file.",
            "If User pastes code, User wants the assistant to never rewrite the whole file.",
        ),
        (
            "Never use emojis in your replies.",
            "User wants the assistant to never use emojis in the assistant's replies.",
        ),
        (
            "Please always answer in metric units!",
            "User wants the assistant to always answer in metric units.",
        ),
        (
            "From now on, write your answers in Portuguese.",
            "User wants the assistant to write the assistant's answers in Portuguese from now on.",
        ),
        ("Going forward, keep it brief.", "User wants the assistant to keep it brief going forward."),
        # The tagger reads these verbs as a noun ("state", "store") or an adjective ("close") at the start.
        (
            "Always state every assumption when I ask about capacity estimates.",
            "When User asks about capacity estimates, User wants the assistant to always state every "
            "assumption.",
        ),
        ("Always store timestamps in UTC.", "User wants the assistant to always store timestamps in UTC."),
        ("From now on, reply in Portuguese.", "User wants the assistant to reply in Portuguese from now on."),
        (
            "Always close with a summary table when I ask about quarterly numbers.",
            "When User asks about quarterly numbers, User wants the assistant to always close with a summary "
            "table.",
        ),
        # "Don't" before a verb of what the assistant writes: a rule for its answers, said as "never".
        (
            "Don't use tabs in Python examples.",
            "User wants the assistant to never use tabs in Python examples.",
        ),
        (
            "Please do not repeat my question back to me.",
            "User wants the assistant to never repeat User's question back to User.",
        ),
    ],
)
def test_an_instruction_is_one_preference_in_the_users_words(text: str, expected: str) -> None:
    found = say(("user", text), ASSISTANT).candidates
    assert [(c.claim, c.kind, c.predicate) for c in found] == [
        (expected, "preference", "instructs_assistant")
    ]


def test_a_statement_beside_the_instruction_is_kept() -> None:
    assert claims("Always remember that my sister lives in Porto.") == [
        "User wants the assistant to always remember that User's sister lives in Porto.",
        "User's sister lives in Porto.",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # "User hates them." would say nothing on its own: a liking of a bare pronoun is no claim
            "Never use semicolons in JavaScript examples, I hate them.",
            ["User wants the assistant to never use semicolons in JavaScript examples."],
        ),
        (
            "Always use metric units, I live in Germany.",  # the parse hangs "use" under "live"
            ["User wants the assistant to always use metric units.", "User lives in Germany."],
        ),
        (
            "I'm allergic to shellfish, so please never suggest shrimp dishes.",  # after a statement
            ["User wants the assistant to never suggest shrimp dishes.", "User is allergic to shellfish."],
        ),
        (
            "I'm vegan, so never suggest meat dishes.",
            ["User wants the assistant to never suggest meat dishes.", "User is vegan."],
        ),
        (
            "Don't add comments to the SQL, I prefer bare queries.",
            ["User wants the assistant to never add comments to the SQL.", "User prefers bare queries."],
        ),
    ],
)
def test_a_statement_beside_the_instruction_is_its_own_claim(text: str, expected: list[str]) -> None:
    assert claims(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Don't forget to bring the tent.",  # a one-off request
        "I work nights, so I never check email before noon.",  # the user's own habit, after "so"
        "I always run my tests, and never push on Fridays.",  # a second verb of the user's, not "please"
        "Don't worry about the deadline.",
        "I don't use Windows at home.",  # the user's own habit
        "I always run my tests before I push.",  # a habit of the user's, said of themselves
        "Never mind, I found the bug myself.",  # an idiom
        "Always?",  # a question
        "It never rains here in July.",
        "Always fun to chat with you!",  # no verb after "always"
        "Always the same problem with this build.",
    ],
)
def test_look_alikes_are_not_instructions(text: str) -> None:
    assert not any("wants the assistant" in claim for claim in claims(text))


def test_between_two_people_an_imperative_is_no_instruction_to_an_assistant() -> None:
    found = say(("user", "Never give up on your painting!", "Ines"), ("user", "Thanks, I won't.", "Tomas"))
    assert not any("assistant" in c.claim for c in found.candidates)
    alone = say(("user", "Always answer in Spanish."))  # a user alone: the service is who they talk to
    assert [c.claim for c in alone.candidates] == ["User wants the assistant to always answer in Spanish."]


def test_the_instruction_is_recalled_for_a_later_question_on_its_topic(
    project: Project, api: APIClient
) -> None:
    turns = [
        {"role": "user", "content": "Always add a cost estimate when I ask about cloud instances."},
        {"role": "assistant", "content": "Understood."},
    ]
    run_inline(make_episode(project, turns, "alice", timestamp="2026-01-05T09:00:00Z").pk)
    assert Memory.objects.filter(predicate="instructs_assistant", kind="preference").count() == 1
    response = api.post(
        "/v1/memhq/recall",
        {"user_id": "alice", "query": "Which cloud instances fit a small web app?"},
        "json",
    )
    assert response.status_code == 200
    assert "cost estimate" in response.json()["items"][0]["text"]
