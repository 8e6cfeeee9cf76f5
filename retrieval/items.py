"""What recall returns: one Item per memory, message, summary or not-yet-processed message."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from ingestion.passages import CUT_MARK, first_passage

#: A message's roles: an unnamed message is anchored on its role, which is never a person's name.
ROLES = frozenset({"user", "assistant", "system", "tool"})


@dataclass
class Item:
    key: str  # "memory:<uuid>", "message:<id>", "passage:<id>", "summary:<episode uuid>",
    # "raw:<episode uuid>:<index>"
    id: str
    type: str  # memory | message | passage (part of a long message) | episode_summary
    text: str
    anchor: str  # what the context groups the item under (a memory's subject entity, a message's speaker)
    role: str | None = None  # a message's or passage's role (user, assistant, ...)
    filler: bool = False  # a message marked as chatter or an empty question back (ingestion.filler)
    kind: str | None = None
    status: str | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    importance: float = 0.0
    reinforce_count: int = 0
    when: datetime | None = None  # the time the item speaks for (memory validity start, message date)
    episode_ids: list[str] = field(default_factory=list)
    message_ids: list[str] = field(default_factory=list)
    #: The stored messages the item stands for, as "<episode uuid>:<index>": a message itself, a memory's
    #: evidence. Fusion adds up the votes for one message across items and dedupes on these.
    sources: list[str] = field(default_factory=list)
    #: A passage's character span in its message's content (``content[start:end]``).
    span: tuple[int, int] | None = None
    ranks: dict[str, int] = field(default_factory=dict)
    score: float = 0.0
    vote: float = 0.0  # the item's own fused vote, before it is shared with items of the same messages

    def copy_with(self, **changes: Any) -> Item:
        """A copy with ``changes``: ``dataclasses.replace`` without its per-call walk over the fields (fusion
        copies every candidate four times a recall, ~750 copies: replace took half of fusion's time)."""
        if not changes.keys() <= _FIELD_NAMES:
            raise TypeError(f"Item has no field {sorted(changes.keys() - _FIELD_NAMES)}")
        copied = object.__new__(Item)
        copied.__dict__.update(self.__dict__, **changes)
        return copied

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "text": self.text,
            "kind": self.kind,
            "status": self.status,
            "valid_from": self.valid_from,
            "valid_until": self.valid_until,
            "score": round(self.score, 6),
            "ranks": self.ranks,
            "provenance": {
                "episode_ids": self.episode_ids,
                "message_ids": self.message_ids,
                **({"span": list(self.span)} if self.span else {}),
            },
        }


_FIELD_NAMES = frozenset(item_field.name for item_field in fields(Item))


def message_source(episode_id: object, index: object) -> str:
    """The "<episode uuid>:<index>" key of a stored message."""
    return f"{episode_id}:{index}"


def role_of(row: dict[str, Any]) -> str | None:
    """A message row's role (rows saved before the column existed: the speaker when it is a role)."""
    role = row.get("msg_role")
    if role is None and row.get("msg_speaker") in ROLES:
        role = row["msg_speaker"]
    return str(role) if role is not None else None


def _stored_message(row: dict[str, Any]) -> dict[str, Any]:
    """What a message item and a passage item take from their stored message."""
    episode_id = str(row["msg_episode_id"])
    return {
        "anchor": row["msg_speaker"] or "",
        "role": role_of(row),
        "filler": bool(row.get("msg_filler")),
        "when": row["msg_date"],
        "episode_ids": [episode_id],
        "message_ids": [row["msg_caller_id"]] if row["msg_caller_id"] else [],
        "sources": [message_source(episode_id, row["msg_index"])],
    }


def _message_text(row: dict[str, Any]) -> str:
    """A message as recall shows it: whole, or a long one as its stored first passage, marked as cut (as
    ``ingestion.passages.first_passage`` would cut it, without tokenising the message on every recall:
    that took ~1.3 ms a message, ~85 ms a recall on long user↔assistant turns). Rows saved before the
    column existed, or a message whose passages are gone, are cut here."""
    if not row.get("msg_passage_count"):
        return str(row["msg_content"])
    first = row.get("msg_first_passage")
    return f"{first}{CUT_MARK}" if first is not None else first_passage(row["msg_content"])


def row_key(row: dict[str, Any]) -> str:
    """The ``Item.key`` of the item a signal row stands for (:func:`item_from_row` builds it): several
    signals find the same item, and fusion builds each item once."""
    if row["memory_id"] is not None:
        return f"memory:{row['memory_id']}"
    if row.get("passage_id") is not None:
        return f"passage:{row['passage_id']}"
    if row["message_id"] is not None:
        return f"message:{row['message_id']}"
    if row["summary_episode_id"] is not None:
        return f"summary:{row['summary_episode_id']}"
    return f"raw:{row['raw_episode_id']}:{row['raw_index']}"


def item_from_row(row: dict[str, Any]) -> Item:
    if row["memory_id"] is not None:
        return Item(
            key=row_key(row),
            id=str(row["memory_id"]),
            type="memory",
            text=row["m_text"],
            anchor=row["m_anchor"] or "",
            kind=row["m_kind"],
            status=row["m_status"],
            valid_from=row["m_valid_from"],
            valid_until=row["m_valid_until"],
            importance=row["m_importance"] or 0.0,
            reinforce_count=row["m_reinforce_count"] or 0,
            when=row["m_valid_from"],
            episode_ids=[str(value) for value in row["m_episode_ids"] or [] if value],
            message_ids=list(row["m_message_ids"] or []),
            sources=sorted(row["m_sources"] or []),
        )
    if row.get("passage_id") is not None:
        return Item(
            key=row_key(row),
            id=str(row["passage_id"]),
            type="passage",
            text=row["pa_text"],
            span=(row["pa_start"], row["pa_end"]),
            **_stored_message(row),
        )
    if row["message_id"] is not None:
        return Item(
            key=row_key(row),
            id=str(row["message_id"]),
            type="message",
            text=_message_text(row),
            **_stored_message(row),
        )
    if row["summary_episode_id"] is not None:
        return Item(
            key=row_key(row),
            id=str(row["summary_episode_id"]),
            type="episode_summary",
            text=row["ep_summary"],
            anchor="",
            when=row["ep_date"],
            episode_ids=[str(row["summary_episode_id"])],
        )
    return Item(
        key=row_key(row),
        id=f"{row['raw_episode_id']}:{row['raw_index']}",
        type="message",
        text=first_passage(row["raw_text"] or ""),
        anchor=row["raw_name"] or "",
        status="unprocessed",
        episode_ids=[str(row["raw_episode_id"])],
        message_ids=[row["raw_caller_id"]] if row["raw_caller_id"] else [],
    )
