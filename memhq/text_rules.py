"""One rule for what text and time the API accepts, so that whatever is accepted can be stored.

- Strings: no NUL (PostgreSQL text and jsonb cannot hold U+0000) and no lone surrogates (U+D800–U+DFFF
  cannot be encoded as UTF-8). JSON can carry both (``"\\u0000"``, ``"\\ud800"``); they are rejected with a
  field error, never stored and failed later.
- Timestamps: ISO-8601, naive = UTC, and within ``TIMESTAMP_MIN``..``TIMESTAMP_MAX`` once converted to UTC
  (years 1000–8999): far enough from the calendar's ends that resolving "next year" or "in two weeks"
  against them never overflows.

- User ids are Unicode-normalised to NFC (``user_id``): "josé" typed as one code point or as "e" and a
  combining accent is one user. NFC because it is what keyboards and most systems produce, and it never
  changes a string made of composed characters (ASCII ids are untouched).

DRF's ``CharField`` already refuses NUL and surrogates; ``/add`` validates with pydantic, which uses
these functions. ``memhq.api.serializers.UserIdField`` normalises user ids the same way on every other
endpoint.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime
from typing import Any

from django.utils.dateparse import parse_datetime

TIMESTAMP_MIN = datetime(1000, 1, 1, tzinfo=UTC)
TIMESTAMP_MAX = datetime(8999, 12, 31, 23, 59, 59, tzinfo=UTC)
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def check_text(value: str) -> str:
    if UNSTORABLE.search(value):
        raise ValueError("Must not contain NUL characters or unpaired surrogates.")
    return value


def user_id(value: str) -> str:
    """A user id as stored and compared: storable, and NFC."""
    return unicodedata.normalize("NFC", check_text(value))


def check_json(value: Any) -> Any:
    """``check_text`` on every key and string inside a JSON value."""
    if isinstance(value, str):
        check_text(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_text(str(key))
            check_json(item)
    elif isinstance(value, list):
        for item in value:
            check_json(item)
    return value


def parse_timestamp(value: str) -> datetime | None:
    """ISO-8601 → aware UTC (naive = UTC); None when it is not ISO-8601 or outside the accepted range."""
    try:
        parsed = parse_datetime(value)
    except ValueError:  # well-formed but impossible, e.g. month 13
        return None
    if parsed is None:
        return None
    try:
        utc = parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
    except (OverflowError, ValueError):
        return None
    return utc if TIMESTAMP_MIN <= utc <= TIMESTAMP_MAX else None


def check_timestamp(value: str | None) -> str | None:
    if value is None:
        return None
    check_text(value)
    if parse_timestamp(value) is None:
        raise ValueError(
            f"Not an ISO-8601 date-time between {TIMESTAMP_MIN:%Y-%m-%d} and {TIMESTAMP_MAX:%Y-%m-%d} (UTC)."
        )
    return value
