from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tooling.evaluation.dataset import load_episodes, load_queries

TOMAS_TIME = "2024-03-01T10:05:00"


def roles(messages: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    return [(message["role"], message.get("name")) for message in messages]


def write_jsonl(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def make_dataset(folder: Path) -> Path:
    write_jsonl(
        folder / "episodes.jsonl",
        [
            {
                "conv_id": "pair",
                "episode_id": "pair/s1",
                "timestamp": "2024-03-01T10:00:00",
                "messages": [
                    {"msg_id": "p1", "speaker": "Rosa", "text": "I grow tomatoes.", "image_caption": "a bed"},
                    {"msg_id": "p2", "speaker": "Tomas", "text": "Mine died.", "timestamp": TOMAS_TIME},
                ],
            },
            {
                "conv_id": "chat",
                "episode_id": "chat/s1",
                "timestamp": "2024-04-01T09:00:00",
                "messages": [
                    {"msg_id": "c1", "speaker": "user", "text": "I prefer tabs."},
                    {"msg_id": "c2", "speaker": "Assistant", "text": "Noted."},
                ],
            },
        ],
    )
    question = {"question_time": "2024-05-01T00:00:00", "answer": "-", "evidence_episode_ids": []}
    write_jsonl(
        folder / "queries.jsonl",
        [
            {**question, "conv_id": "pair", "qid": "q1", "question": "What grows?", "category_name": "single",
             "evidence_msg_ids": ["p1"], "scorable": True},
            {**question, "conv_id": "chat", "qid": "q2", "question": "Tabs?", "category_name": "pref",
             "evidence_msg_ids": ["c1"], "scorable": True},
            {**question, "conv_id": "chat", "qid": "q3", "question": "Unknown?", "category_name": "abstain",
             "evidence_msg_ids": [], "scorable": False},
        ],
    )  # fmt: skip
    return folder


def test_people_are_role_user_with_their_name_and_roles_are_sent_without_a_name(tmp_path: Path) -> None:
    pair, chat = load_episodes(make_dataset(tmp_path))
    assert roles(pair.body["messages"]) == [("user", "Rosa"), ("user", "Tomas")]
    assert roles(chat.body["messages"]) == [("user", None), ("assistant", None)]
    assert pair.body["messages"][0]["content"] == "I grow tomatoes. [shares a photo: a bed]"
    assert pair.body["messages"][1]["timestamp"] == TOMAS_TIME
    assert chat.body["user_id"] == "chat" and chat.body["metadata"] == {"episode_id": "chat/s1"}


def test_only_the_selected_conversations_and_scorable_questions_load(tmp_path: Path) -> None:
    make_dataset(tmp_path)
    assert [episode.conv_id for episode in load_episodes(tmp_path, {"chat"})] == ["chat"]
    queries = load_queries(tmp_path, {"chat"})
    assert [(query.qid, query.category) for query in queries] == [("q2", "pref")]
    assert queries[0].question_time.tzinfo is not None
