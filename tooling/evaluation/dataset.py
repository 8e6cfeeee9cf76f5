"""The retrieval evaluation format (``../shared/eval/README.md``): episodes.jsonl and queries.jsonl."""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

#: How an image a speaker shared is written into the message text (the caption is part of what was said).
IMAGE_NOTE = " [shares a photo: {caption}]"


@dataclass(frozen=True)
class EvalEpisode:
    conv_id: str
    episode_id: str
    timestamp: str
    body: dict[str, Any]  # the /add request body for this session


@dataclass(frozen=True)
class EvalQuery:
    conv_id: str
    qid: str
    question: str
    question_time: datetime
    category: str
    gold_messages: tuple[str, ...]
    gold_episodes: tuple[str, ...]


def naive_utc(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


#: Speakers that are roles, not people (``../shared/eval/README.md``): sent as that role, without a name, as a
#: client talking to an assistant does. Every other speaker is a person: role ``user`` with their name.
ROLE_SPEAKERS = frozenset({"user", "assistant"})


def _message(raw: dict[str, Any]) -> dict[str, Any]:
    text = raw["text"]
    if raw.get("image_caption"):
        text += IMAGE_NOTE.format(caption=raw["image_caption"])
    speaker = raw["speaker"]
    message: dict[str, Any] = {"content": text, "id": raw["msg_id"]}
    if speaker.lower() in ROLE_SPEAKERS:
        message["role"] = speaker.lower()
    else:
        message.update(role="user", name=speaker)
    if raw.get("timestamp"):
        message["timestamp"] = raw["timestamp"]
    return message


def load_episodes(path: Path, conversations: Collection[str] | None = None) -> list[EvalEpisode]:
    """The sessions of ``conversations`` (ids; all when ``None``), in file order."""
    episodes: list[EvalEpisode] = []
    with (path / "episodes.jsonl").open() as lines:
        for line in lines:
            if not line.strip():
                continue
            raw = json.loads(line)
            if conversations is not None and raw["conv_id"] not in conversations:
                continue
            body = {
                "user_id": raw["conv_id"],
                "messages": [_message(message) for message in raw["messages"]],
                "timestamp": raw["timestamp"],
                "metadata": {"episode_id": raw["episode_id"]},
            }
            episodes.append(EvalEpisode(raw["conv_id"], raw["episode_id"], raw["timestamp"], body))
    return episodes


def load_queries(path: Path, conversations: Collection[str]) -> list[EvalQuery]:
    """The scorable questions about ``conversations``, in file order."""
    queries: list[EvalQuery] = []
    with (path / "queries.jsonl").open() as lines:
        for line in lines:
            if not line.strip():
                continue
            raw = json.loads(line)
            if not raw.get("scorable") or raw["conv_id"] not in conversations:
                continue
            queries.append(
                EvalQuery(
                    conv_id=raw["conv_id"],
                    qid=raw["qid"],
                    question=raw["question"],
                    question_time=naive_utc(raw["question_time"]),
                    category=raw["category_name"],
                    gold_messages=tuple(raw["evidence_msg_ids"]),
                    gold_episodes=tuple(raw["evidence_episode_ids"]),
                )
            )
    return queries
