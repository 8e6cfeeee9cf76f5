"""A suggestion the user takes up without repeating it is one decision, with the assistant's words
(``ingestion.extractors.rules_accepted``); a suggestion let pass, a plain yes to a recommendation and "that"
over two options are nothing."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from ingestion.extractors.rules_accepted import PREDICATE
from ingestion.pipeline import run_inline
from memhq.models import Evidence, Memory, Project
from tests.ingestion.helpers import make_episode
from tests.ingestion.rules_support import claims, say


def decided(*turns: tuple[str, str]) -> list[str]:
    return [c.claim for c in say(*turns).candidates if c.predicate == PREDICATE]


def test_a_recommendation_taken_up_is_a_decision_with_both_turns_as_sources() -> None:
    result = say(
        ("user", "I need a backup tool for my home server."),
        ("assistant", "I'd recommend restic with a B2 bucket, since it deduplicates well."),
        ("user", "Sounds good, let's go with that."),
    )
    taken = [c for c in result.candidates if c.predicate == PREDICATE]
    assert [c.claim for c in taken] == ["User went with the assistant's suggestion: restic with a B2 bucket."]
    assert taken[0].kind == "decision"
    assert taken[0].source_message_indexes == (2, 1)
    assert (taken[0].span_start, taken[0].span_end) == (0, len("Sounds good, let's go with that"))


def test_the_option_named_by_its_place_is_taken() -> None:
    result = say(
        ("user", "Any idea for my cat's name?"),
        ("assistant", "How about Pixel, Mochi or Captain?"),
        ("user", "I'll take the last one."),
    )
    assert claims(result) == [
        "User went with the assistant's suggestion: Captain."
    ]  # nothing of "the last one"


def test_an_option_taken_up_by_its_name() -> None:
    assert decided(
        ("user", "What should I call the sourdough starter?"),
        ("assistant", "How about Bubbles or Clint Yeastwood?"),
        ("user", "Clint Yeastwood it is!"),
    ) == ["User went with the assistant's suggestion: Clint Yeastwood."]


@pytest.mark.parametrize(
    ("answer", "option"),
    [
        ("Juniper is perfect!", "Juniper"),
        ("Ok, I'll take the Framework, I want to repair it myself.", "the Framework 13"),
        ("Let's go with Pike.", "Pike"),
    ],
)
def test_an_option_taken_up_by_its_name_in_other_words(answer: str, option: str) -> None:
    assert decided(
        ("user", "Ideas for a name, or a laptop?"),
        ("assistant", "How about Juniper, Pike, or the Framework 13?"),
        ("user", answer),
    ) == [f"User went with the assistant's suggestion: {option}."]


def test_an_offer_taken_up_with_a_plain_yes() -> None:
    assert decided(
        ("user", "I always forget to water the plants."),
        ("assistant", "Shall I remind you every Sunday evening?"),
        ("user", "Yes please, go ahead."),
    ) == ["User agreed to the assistant's offer to remind User every Sunday evening."]


@pytest.mark.parametrize(
    "turns",
    [
        (("assistant", "I'd recommend the blue one."), ("user", "Hmm, I'll think about it.")),
        (("assistant", "I'd recommend the blue one."), ("user", "Yes.")),  # may only agree it is good
        (("assistant", "You could try Zed or Neovim."), ("user", "Ok, I'll try that.")),  # which one?
        (("assistant", "How about Zed or Neovim?"), ("user", "Helix it is.")),  # no option of the assistant's
        (("assistant", "How about Zed or Neovim?"), ("user", "That is perfect.")),  # which one?
        (("assistant", "How about the Zed Pro or the Zed Lite?"), ("user", "I'll take the Zed.")),  # both
        (("assistant", "Shall I send you the summary?"), ("user", "Thanks!")),  # may close the topic too
        (("assistant", "I'd recommend the blue one."), ("user", "Let's go with that. " + "word " * 20)),
        (("user", "My friend says: try the blue one."), ("user", "Ok, let's go with that.")),  # no assistant
    ],
)
def test_nothing_is_decided(turns: tuple[tuple[str, str], ...]) -> None:
    assert decided(*turns) == []


def test_the_decision_is_stored_with_both_turns_as_evidence_and_recalled(
    project: Project, api: APIClient
) -> None:
    messages = [
        {"role": "user", "content": "I need a backup tool for my home server."},
        {
            "role": "assistant",
            "content": "I'd recommend restic with a B2 bucket, since it deduplicates well.",
        },
        {"role": "user", "content": "Perfect, let's go with that."},
    ]
    episode = make_episode(project, messages, user_id="ines")
    run_inline(episode.pk)
    memory = Memory.objects.get(user_id="ines", predicate=PREDICATE)
    assert memory.text == "User went with the assistant's suggestion: restic with a B2 bucket."
    indexes = sorted(i for e in Evidence.objects.filter(memory=memory) for i in e.message_indexes)
    assert indexes == [1, 2]
    asked = api.post(
        "/v1/memhq/recall", {"user_id": "ines", "query": "Which backup tool did I pick?"}, format="json"
    )
    assert asked.status_code == 200, asked.json()
    assert any("restic" in item["text"] for item in asked.json()["items"][:3]), asked.json()["items"]


def test_a_proposal_with_a_comma_is_one_thing() -> None:
    taken = decided(
        ("user", "How should I structure my study week?"),
        ("assistant", "I'd suggest two long sessions, Tuesday and Saturday mornings."),
        ("user", "Perfect, let's go with that."),
    )
    assert taken == [
        "User went with the assistant's suggestion: two long sessions, Tuesday and Saturday mornings."
    ]


_LISTED = "Option 1: a standing desk converter. Option 2: a full electric standing desk."
_NUMBERED = "A few routes:\n1. The coastal path\n2. The ridge trail\n3. The forest loop"


@pytest.mark.parametrize(
    ("options", "reply", "expected"),
    [
        (_LISTED, "Let's go with option 2.", "a full electric standing desk"),
        (_LISTED, "Option 1 it is.", "a standing desk converter"),
        (_LISTED, "OK, the second one then.", "a full electric standing desk"),
        (_NUMBERED, "I'll take number 3 on Sunday.", "The forest loop"),
    ],
)
def test_an_option_listed_by_number_is_taken(options: str, reply: str, expected: str) -> None:
    taken = decided(("user", "Any ideas?"), ("assistant", options), ("user", reply))
    assert taken == [f"User went with the assistant's suggestion: {expected}."]


@pytest.mark.parametrize(
    "reply",
    ["Option 2 looks expensive.", "What about option 2?", "Definitely not option 1.", "Let's do option 3."],
)
def test_an_option_listed_by_number_that_is_not_taken(reply: str) -> None:
    assert decided(("user", "Any ideas?"), ("assistant", _LISTED), ("user", reply)) == []
