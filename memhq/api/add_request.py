"""The /add request body, validated straight from the raw bytes with pydantic (one pass, ~50× cheaper than
a DRF serializer on this hot path); drf-spectacular documents the model as it is.

Timestamps are ISO-8601 strings checked with the parser the persist phase uses; naive ones mean UTC. Every
string obeys memhq/text_rules.py (no NUL, no lone surrogates; timestamps in a documented range), so
whatever is accepted can be stored.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from django.conf import settings
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memhq import text_rules
from memhq.api.serializers import MAX_ID_CHARS, MAX_NAME_CHARS
from memhq.text_rules import check_json, check_text, check_timestamp

NON_FIELD = "non_field_errors"
#: An ISO-8601 string (checked by ``check_timestamp``); the schema says so.
Timestamp = Annotated[str, Field(json_schema_extra={"format": "date-time"})]


def _iso_timestamp(value: str | None) -> str | None:
    return check_timestamp(value)


def _text(value: str | None) -> str | None:
    return None if value is None else check_text(value)


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    role: Literal["user", "assistant", "system", "tool"]
    content: str = Field(min_length=1)
    name: str | None = Field(default=None, max_length=MAX_NAME_CHARS)
    timestamp: Timestamp | None = None
    id: str | None = Field(default=None, max_length=MAX_ID_CHARS)

    @field_validator("content")
    @classmethod
    def content_size(cls, value: str) -> str:
        limit = settings.MEMHQ_MAX_MESSAGE_BYTES
        if len(value) * 4 > limit and len(value.encode()) > limit:  # encode only when it could be too big
            raise ValueError(f"A message may hold at most {limit} bytes.")
        return value

    _timestamp = field_validator("timestamp")(_iso_timestamp)
    _texts = field_validator("content", "name", "id")(_text)


class AddRequest(BaseModel):
    """``POST /v1/memhq/add``. Unknown fields are rejected."""

    model_config = ConfigDict(extra="forbid", strict=True)

    user_id: str = Field(min_length=1, max_length=settings.MEMHQ_MAX_USER_ID_CHARS)
    messages: list[MessageIn] = Field(min_length=1)
    timestamp: Timestamp | None = None
    thread_id: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    metadata: dict[str, Any] | None = None

    _timestamp = field_validator("timestamp")(_iso_timestamp)
    _texts = field_validator("thread_id")(_text)
    _user_id = field_validator("user_id")(text_rules.user_id)

    @field_validator("messages")
    @classmethod
    def message_count(cls, value: list[MessageIn]) -> list[MessageIn]:
        if len(value) > settings.MEMHQ_MAX_MESSAGES:
            raise ValueError(f"At most {settings.MEMHQ_MAX_MESSAGES} messages per episode.")
        return value

    @field_validator("metadata")
    @classmethod
    def metadata_size(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        limit = settings.MEMHQ_MAX_METADATA_BYTES
        if value is not None and len(json.dumps(value, separators=(",", ":")).encode()) > limit:
            raise ValueError(f"metadata may hold at most {limit} bytes of JSON.")
        return check_json(value)


def field_errors(error: ValidationError) -> dict[str, Any]:
    """pydantic errors → the API's ``fields`` shape: nested by location, a list of messages at each leaf."""
    fields: dict[str, Any] = {}
    for item in error.errors(include_url=False):
        path = [str(part) for part in item["loc"]] or [NON_FIELD]
        node = fields
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node.setdefault(path[-1], []).append(item["msg"].removeprefix("Value error, "))
    return fields
