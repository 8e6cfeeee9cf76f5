"""One module per retrieval signal. Each returns a SQL SELECT that yields ranked hits in the common shape
(``signal``, ``rank`` and ``HIT_COLUMNS``), reading the query context from the CTEs that ``retrieval.query``
puts first:

    q(v vector, tsq tsquery, project_id uuid, user_id text, as_of timestamptz, history bool,
      qtext text, qwords text[], type_hints text[], time_starts timestamptz[], time_ends timestamptz[])
    terms(lexeme text, tsq tsquery, msg_idf float8, mem_idf float8, ...),
    term_sets(msg_tsq tsquery, mem_tsq tsquery)                                (see retrieval.signals.terms)

A hit is a memory (``memory_id``), an episode message (``message_id``), an episode summary
(``episode_id``), or a message of an episode not persisted yet (``raw_*`` columns). ``score`` is the signal's
own relevance (higher is better; fusion normalises it per signal).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The hit shape every signal yields (after ``signal`` and ``rank``), with each column's SQL type.
HIT_COLUMNS = {
    "memory_id": "uuid",
    "message_id": "bigint",
    "summary_episode_id": "uuid",
    "raw_episode_id": "uuid",
    "raw_index": "int",
    "raw_text": "text",
    "raw_name": "text",
    "raw_caller_id": "text",
    "score": "float8",
}

#: Every signal returns at most this many hits (DESIGN §5).
SIGNAL_LIMIT = 30


@dataclass(frozen=True)
class SignalSQL:
    name: str
    sql: str  # a SELECT producing HIT_COLUMNS, in rank order
    params: list[Any] = field(default_factory=list)


def hits_select(signal: str, inner: str, **columns: str) -> str:
    """Wrap ``inner`` (ordered, yielding the columns named in ``columns``) in the hit shape."""
    values = {name: "NULL" for name in HIT_COLUMNS}
    values.update(columns)
    projection = ", ".join(f"({values[name]})::{kind} AS {name}" for name, kind in HIT_COLUMNS.items())
    return (
        f"SELECT '{signal}'::text AS signal, (row_number() OVER ())::int AS rank, {projection} "
        f"FROM ({inner}) AS {signal}_hits"
    )


LIVE_MEMORY = """
    m.project_id = (SELECT project_id FROM q) AND m.user_id = (SELECT user_id FROM q)
    AND m.status IN ('active', 'superseded') AND m.indexed_at IS NOT NULL
    AND ((SELECT history FROM q) OR (
        m.valid_from <= (SELECT as_of FROM q)
        AND (m.valid_until IS NULL OR m.valid_until > (SELECT as_of FROM q))))
"""

USER_MESSAGE = """
    msg.project_id = (SELECT project_id FROM q) AND msg.user_id = (SELECT user_id FROM q)
    AND (msg.document_date IS NULL OR msg.document_date <= (SELECT as_of FROM q))
"""
