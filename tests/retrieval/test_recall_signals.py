"""The time anchor, neighbour expansion and speaker nudge through the real pipeline (make_episode +
run_inline, then POST /v1/memhq/recall), and the shape of the one statement recall runs."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from ingestion.pipeline import run_inline
from memhq.models import Project
from retrieval.signals import SIGNAL_LIMIT
from tests.ingestion.helpers import make_episode

RECALL = "/v1/memhq/recall"
CHATTER = (
    "The weather was lovely this afternoon.",
    "I need to buy groceries later.",
    "The train was late again this morning.",
    "My laptop battery is draining fast.",
    "We should repaint the kitchen at some point.",
    "The neighbours are having a party tonight.",
    "I finally fixed the squeaky door.",
    "Coffee tastes better from the new grinder.",
)


def episode(project: Project, turns: list[tuple[str, str]], timestamp: str, user_id: str = "alice") -> None:
    messages = [
        {"role": "user", "name": name, "content": text, "id": f"{timestamp[:10]}-{i}"}
        for i, (name, text) in enumerate(turns)
    ]
    run_inline(make_episode(project, messages, user_id, timestamp=timestamp).pk)


def items(api: APIClient, query: str, user_id: str = "alice") -> list[dict[str, Any]]:
    response = api.post(RECALL, {"user_id": user_id, "query": query}, "json")
    assert response.status_code == 200
    return list(response.json()["items"])


def test_a_date_in_the_query_anchors_on_what_was_said_that_day(project: Project, api: APIClient) -> None:
    episode(project, [("Alice", "We went hiking up the ridge with Tom.")], "2023-05-07T18:00:00Z")
    episode(project, [("Alice", "We went hiking by the lake with Ana.")], "2023-08-20T18:00:00Z")
    episode(project, [("Alice", "We went hiking in the forest with Lee.")], "2023-10-02T18:00:00Z")
    found = items(api, "Who did Alice go hiking with on 7 May 2023?")
    assert "time" in found[0]["ranks"]
    assert "2023-05-07-0" in found[0]["provenance"]["message_ids"]
    dated = [item for item in found if "time" in item["ranks"]]
    assert all(item["provenance"]["message_ids"] == ["2023-05-07-0"] for item in dated)


def test_the_turn_after_a_matching_question_comes_with_it(project: Project, api: APIClient) -> None:
    chatter = [("Alice" if i % 2 else "Bob", CHATTER[i % len(CHATTER)] + f" ({i})") for i in range(40)]
    episode(project, chatter, "2023-03-01T10:00:00Z")
    qa = [
        ("Alice", "I keep wondering which instrument your brother Sam plays these days?"),
        ("Bob", "The cello, he has been at it for ten years now."),
    ]
    episode(project, qa, "2023-03-02T10:00:00Z")
    found = items(api, "Which instrument does Sam play?")
    ids = [message_id for item in found for message_id in item["provenance"]["message_ids"]]
    assert "2023-03-02-0" in ids[:3]
    assert "2023-03-02-1" in ids[:3]
    answer = next(item for item in found if item["provenance"]["message_ids"] == ["2023-03-02-1"])
    assert "neighbour" in answer["ranks"]


def test_a_named_speakers_own_turns_rank_above_the_same_words_from_someone_else(
    project: Project, api: APIClient
) -> None:
    episode(
        project,
        [
            ("Tom", "I adopted a rescue greyhound last week."),
            ("Ana", "I adopted a rescue greyhound last week."),
        ],
        "2023-06-01T10:00:00Z",
    )
    found = items(api, "What did Ana adopt?")
    assert found[0]["provenance"]["message_ids"] == ["2023-06-01-1"]


def test_recall_is_one_statement_and_every_signal_is_bounded(project: Project, api: APIClient) -> None:
    episode(
        project,
        [("Alice", CHATTER[i % len(CHATTER)] + f" number {i}") for i in range(45)],
        "2023-01-05T10:00:00Z",
    )
    with CaptureQueriesContext(connection) as captured:
        found = items(api, "What happened on 5 January 2023 with the kitchen and the train?")
    recall_sql = [query["sql"] for query in captured.captured_queries if "base_hits" in query["sql"]]
    assert len(recall_sql) == 1
    ranks: dict[str, list[int]] = {}
    for item in found:
        for signal, rank in item["ranks"].items():
            ranks.setdefault(signal, []).append(rank)
    assert all(max(values) <= SIGNAL_LIMIT for values in ranks.values())
    assert {"message_vector", "message_keyword", "time"} <= set(ranks)


@pytest.mark.parametrize("repeats", [1, 70], ids=["question", "near the length limit"])
def test_two_words_said_side_by_side_as_the_query_has_them_find_their_message(
    project: Project, api: APIClient, repeats: int
) -> None:
    """The phrase signals: "deadline" is in every planning turn, "first" and "release" each in several;
    only one turn says "first public release" as the question does. A question repeated to ~3,800
    characters finds the same (its pairs are bounded and counted once)."""
    turns = [
        "The deadline for the invoice module slipped again, the reviewers are slow.",
        "Our deadline for the billing export is the end of the sprint.",
        "I moved the deadline for the data migration by a week.",
        "First I check whether the release notes for the old version are done.",
        "We are aiming for the first public release by 3 March, with the beta before it.",
        "The release of the mobile app comes first, then the public website.",
    ]
    messages = [{"role": "user", "content": text, "id": f"m{i}"} for i, text in enumerate(turns)]
    run_inline(make_episode(project, messages, "alice", timestamp="2024-01-10T09:00:00Z").pk)
    found = items(api, " ".join(["What deadline did I set for the first public release?"] * repeats))
    by_phrase = {
        item["provenance"]["message_ids"][0]: item["ranks"]
        for item in found
        if "message_phrase" in item["ranks"] or "memory_phrase" in item["ranks"]
    }
    assert by_phrase["m4"].get("message_phrase") == 1
    assert set(by_phrase) == {"m4"}  # the same words apart, or in another order, are not the phrase
    assert found[0]["provenance"]["message_ids"] == ["m4"]
