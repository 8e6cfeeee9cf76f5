"""A claim's words as reconcile's rules compare them (``ingestion.conflicts``, ``ingestion.cancellations``):
lower-cased letters and digits, without articles and the speaker's possessives."""

from __future__ import annotations

import re

_WORDS = re.compile(r"[a-z0-9]+")
_ARTICLES = frozenset({"a", "an", "the", "my", "our"})


def words(text: str) -> list[str]:
    return [w for w in _WORDS.findall(text.casefold()) if w not in _ARTICLES]
