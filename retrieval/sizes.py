"""Which way recall's kNN signals search each of a user's tables (exact for a user with few rows, else the
HNSW index: ``retrieval.signals.sizes_cte``), remembered per process for ``MEMHQ_RECALL_SIZES_TTL_S``.

Why: deciding counts the user's index entries in each table (up to one past its limit), which cost
~0.55-0.85 ms of every recall for a user with 100k memories (in process, the 12 benchmark queries × 20:
statement p50 4.35 → 3.50 ms with the decision remembered). The answer changes only when the user's rows
cross their table's limit (which grows with the table), so recall remembers what its statement decided
(the statement returns its ``sizes`` row) and passes it in on the next calls; the statement counts only
what it is not told.

What staleness costs, at most one TTL: a user who just grew past the threshold is still searched exactly
(the right answer, a few ms slower); one who just shrank below it (erasure) is searched through HNSW with
iterative scans (approximate, as for any large user). Per process and bounded (``MAX_USERS``, least
recently used out); ``MEMHQ_RECALL_SIZES_TTL_S = 0`` counts on every recall.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from django.conf import settings

#: The ``sizes`` CTE's columns, in ``q.known_sizes`` order; the statement returns them with ``COLUMN_PREFIX``.
FLAGS: Final = ("memories_exact", "messages_exact", "entities_exact", "passages_exact")
COLUMN_PREFIX: Final = "sizes_"
#: Users remembered per process.
MAX_USERS: Final = 10_000


@dataclass(frozen=True)
class Sizes:
    memories_exact: bool
    messages_exact: bool
    entities_exact: bool
    passages_exact: bool

    def as_param(self) -> str:
        """``q.known_sizes``: one letter per flag, ``t`` or ``f``, in ``FLAGS`` order. (One text, not three
        nullable booleans: psycopg prepares a statement per parameter types, and a NULL is typed apart.)"""
        return "".join("t" if getattr(self, flag) else "f" for flag in FLAGS)


#: ``q.known_sizes`` when nothing is remembered.
UNKNOWN: Final = ""

_lock = threading.Lock()
_known: OrderedDict[tuple[uuid.UUID, str], tuple[float, Sizes]] = OrderedDict()


def known(project_id: uuid.UUID, user_id: str) -> Sizes | None:
    """What the last recall of this user decided, if within the TTL."""
    key = (project_id, user_id)
    with _lock:
        entry = _known.get(key)
        if entry is None:
            return None
        if time.monotonic() - entry[0] >= settings.MEMHQ_RECALL_SIZES_TTL_S:
            del _known[key]
            return None
        _known.move_to_end(key)
        return entry[1]


def remember(project_id: uuid.UUID, user_id: str, row: Mapping[str, Any]) -> None:
    """Keep the ``sizes`` a statement returned (``row``: any of its rows)."""
    if settings.MEMHQ_RECALL_SIZES_TTL_S <= 0:
        return
    values = [row.get(COLUMN_PREFIX + flag) for flag in FLAGS]
    if not all(isinstance(value, bool) for value in values):
        return
    sizes = Sizes(*(value is True for value in values))
    with _lock:
        _known[(project_id, user_id)] = (time.monotonic(), sizes)
        _known.move_to_end((project_id, user_id))
        while len(_known) > MAX_USERS:
            _known.popitem(last=False)


def forget_all() -> None:
    with _lock:
        _known.clear()
