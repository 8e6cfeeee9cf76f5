"""Compose the signals into ONE SQL statement: one round trip returns every signal's ranked hits with the
details of each hit (memory, message, summary or unprocessed message) and the user's processed_through.

Shape: ``WITH q (the query), sizes (exact or HNSW kNN, per table), terms/term_sets (BM25 statistics),
pairs (the query's phrases), base_hits (every signal), hits (base_hits + the neighbours of the best base
hits + the base hits holding a phrase of the query)`` then the details of each hit."""

from __future__ import annotations

import functools
import re
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import psycopg
from django.conf import settings
from django.db import connections
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper

from memhq.ai import e5
from memhq.models.vectors import vector_literal
from memhq.replicas import routing
from memhq.services.entities import normalize_name
from retrieval import beginning, recap, sizes
from retrieval.signals import (
    LIVE_MEMORY,
    SAMPLED_USER_MESSAGE,
    SignalSQL,
    entity,
    instructions,
    keyword,
    messages,
    neighbours,
    passages,
    phrases,
    second_vector,
    sizes_cte,
    summaries,
    time,
    vector,
)
from retrieval.signals.terms import terms_cte
from retrieval.type_hints import hinted_types

_WORD = re.compile(r"[a-z0-9]+")
#: Query n-grams (1..N words) compared with entity names and aliases for exact anchors.
MAX_NAME_WORDS = 3
#: Only this many query words go into the full-text OR query (very long queries add noise and cost).
MAX_QUERY_TERMS = 32


def signal_sql() -> list[SignalSQL]:
    second = [second_vector.build()] if e5.enabled() else []
    return [
        vector.build(),
        keyword.build(),
        entity.build(),
        messages.build_vector(),
        messages.build_keyword(),
        messages.build_unprocessed(),
        passages.build_vector(),
        passages.build_keyword(),
        summaries.build(),
        time.build(),
        instructions.build(),
        *second,
    ]


def signal_names() -> list[str]:
    """Every signal recall runs, the neighbour expansion included."""
    return [signal.name for signal in signal_sql()] + [neighbours.NAME, *phrases.NAMES]


QUERY_CTE = """q AS MATERIALIZED (
    SELECT %s::vector AS v, %s::vector AS v2, to_tsquery('english', %s) AS tsq, %s::uuid AS project_id,
           %s::text AS user_id, %s::timestamptz AS as_of, %s::bool AS history, %s::text AS qtext,
           %s::text[] AS qwords, %s::text AS qraw, %s::text[] AS type_hints, %s::timestamptz[] AS time_starts,
           %s::timestamptz[] AS time_ends, %s::bool AS beginning, %s::text AS known_sizes)"""

#: The statement's decision on each table (``retrieval.sizes`` remembers it), on every row.
_SIZES_COLUMNS = ", ".join(f"sz.{flag} AS {sizes.COLUMN_PREFIX}{flag}" for flag in sizes.FLAGS)

#: Every hit's columns. A summary hit's episode is read by its key in a subquery per hit, never joined: as a
#: join, the prepared statement's generic plan hashed the whole episode table, every user's (a seq scan of
#: 3,000 rows at the 20k benchmark, growing with the table), to find the ten summaries it hit.
DETAILS = f"""
SELECT p.*, h.*,
       m.text AS m_text, m.kind AS m_kind, m.status AS m_status, m.valid_from AS m_valid_from,
       m.valid_until AS m_valid_until, m.importance AS m_importance, m.confidence AS m_confidence,
       m.reinforce_count AS m_reinforce_count, m.last_seen_at AS m_last_seen_at, m.subject AS m_subject,
       coalesce(se.name, m.subject) AS m_anchor,
       ev.message_ids AS m_message_ids, ev.episode_ids AS m_episode_ids, ev.sources AS m_sources,
       msg.content AS msg_content, coalesce(nullif(msg.name, ''), msg.role) AS msg_speaker,
       msg.role AS msg_role, msg.caller_id AS msg_caller_id, msg.episode_id AS msg_episode_id,
       msg.document_date AS msg_date, msg.index AS msg_index, msg.passage_count AS msg_passage_count,
       msg.filler AS msg_filler,
       CASE WHEN h.message_id IS NOT NULL AND msg.passage_count > 0
            THEN (SELECT fp.text FROM memhq_passage fp WHERE fp.message_id = msg.id AND fp.ordinal = 0)
       END AS msg_first_passage,
       pa.text AS pa_text, pa.start AS pa_start, pa."end" AS pa_end,
       CASE WHEN h.summary_episode_id IS NOT NULL
            THEN (SELECT ep.summary FROM memhq_episode ep WHERE ep.id = h.summary_episode_id)
       END AS ep_summary,
       CASE WHEN h.summary_episode_id IS NOT NULL
            THEN (SELECT min(document_date) FROM memhq_episodemessage WHERE episode_id = h.summary_episode_id)
       END AS ep_date
FROM (SELECT (SELECT max(received_at) FROM memhq_episode
              WHERE project_id = (SELECT project_id FROM q) AND user_id = (SELECT user_id FROM q)
                AND status = 'completed') AS processed_through, {_SIZES_COLUMNS}
      FROM sizes sz) AS p
LEFT JOIN hits h ON true
LEFT JOIN memhq_memory m ON m.id = h.memory_id
LEFT JOIN memhq_entity se ON se.id = m.subject_entity_id
LEFT JOIN LATERAL (
    SELECT array_agg(DISTINCT mid) FILTER (WHERE mid <> '') AS message_ids,
           array_agg(DISTINCT ev.episode_id) AS episode_ids,
           array_agg(DISTINCT ev.episode_id::text || ':' || idx) FILTER (WHERE idx IS NOT NULL) AS sources
    FROM memhq_evidence ev
    LEFT JOIN LATERAL unnest(ev.caller_message_ids) AS mid ON true
    LEFT JOIN LATERAL unnest(ev.message_indexes) AS idx ON true
    WHERE ev.memory_id = m.id
) AS ev ON h.memory_id IS NOT NULL
LEFT JOIN memhq_passage pa ON pa.id = h.passage_id
LEFT JOIN memhq_episodemessage msg ON msg.id = coalesce(h.message_id, pa.message_id)
"""


@dataclass(frozen=True)
class QueryContext:
    project_id: uuid.UUID
    user_id: str
    text: str
    vector: np.ndarray
    as_of: datetime
    history: bool
    second: np.ndarray | None = None  # the query's second-embedder vector (memhq.ai.e5), when it is on


def tsquery_text(text: str) -> str:
    """An OR query of the words (stemming and stop words are Postgres's 'english' configuration's job)."""
    words = list(dict.fromkeys(_WORD.findall(text.lower())))[:MAX_QUERY_TERMS]
    return " | ".join(words)


def name_ngrams(text: str) -> list[str]:
    words = normalize_name(text).split()
    grams = {
        " ".join(words[start : start + size])
        for size in range(1, MAX_NAME_WORDS + 1)
        for start in range(0, max(len(words) - size + 1, 0))
    }
    return sorted(grams)


@functools.cache
def statement() -> tuple[str, tuple[Any, ...]]:
    """The SQL (after the ``q`` parameters) and the signals' own parameters. Built from constants only, so
    once per process (rebuilding it cost every recall ~0.06 ms)."""
    signals = signal_sql()
    base = " UNION ALL ".join(f"({signal.sql})" for signal in signals)
    expansion = neighbours.build()
    rescored = phrases.build()
    ctes = [QUERY_CTE, sizes_cte(), terms_cte(SAMPLED_USER_MESSAGE, LIVE_MEMORY), phrases.pairs_cte()]
    sql = (
        f"WITH {', '.join(ctes)}, "
        f"base_hits AS MATERIALIZED ({base}), "
        f"hits AS (SELECT * FROM base_hits UNION ALL ({expansion.sql})"
        + "".join(f" UNION ALL ({signal.sql})" for signal in rescored)
        + f") {DETAILS}"
    )
    params = tuple(param for signal in (*signals, expansion, *rescored) for param in signal.params)
    return sql, params


def parameters(context: QueryContext, known: sizes.Sizes | None = None) -> list[Any]:
    """The values of the ``q`` CTE's placeholders, in order (``known``: the user's remembered sizes)."""
    starts, ends = time.windows(context.text, context.as_of)
    searched = recap.topic(context.text)  # the words the keyword signals look for
    # A question about how things began asks about the past: what has since changed is searched too.
    began = beginning.asks_for_beginning(context.text)
    return [
        vector_literal(context.vector),
        vector_literal(context.second),
        tsquery_text(searched),
        context.project_id,
        context.user_id,
        context.as_of,
        context.history or began,
        normalize_name(context.text),
        name_ngrams(context.text),
        searched,
        hinted_types(context.text),
        starts,
        ends,
        began,
        known.as_param() if known else sizes.UNKNOWN,
    ]


def run(context: QueryContext) -> list[dict[str, Any]]:
    sql, signal_params = statement()
    known = sizes.known(context.project_id, context.user_id)
    params = [*parameters(context, known), *signal_params]
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        columns = [column.name for column in cursor.description]
        rows = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
    if known is None and rows:
        sizes.remember(context.project_id, context.user_id, rows[0])
    return rows


class _PreparedCursor(psycopg.Cursor[tuple[Any, ...]]):
    """Binds parameters on the server and prepares the statement (when settings.MEMHQ_RECALL_PREPARED): the
    planner's ~3-5 ms for recall's statement are spent once per connection; the parameters only feed the
    materialised ``q`` CTE, so the generic plan Postgres then keeps is as good as a custom one. (Django's own
    cursors bind on the client, which rules prepared statements out.)"""

    def execute(
        self, query: Any, params: Any = None, *, prepare: bool | None = None, binary: bool | None = None
    ) -> Any:
        return super().execute(query, params, prepare=settings.MEMHQ_RECALL_PREPARED, binary=binary)


class _LoggedCursor(CursorDebugWrapper):
    """When queries are logged (DEBUG, tests): Django reads a query back from a client-binding cursor, which
    a prepared one is not; log the SQL as written instead."""

    def execute(self, sql: Any, params: Any = None) -> Any:
        with self.debug_sql(sql, params):
            return CursorWrapper.execute(self, sql, params)


def prepared_cursor() -> CursorWrapper:
    """A :class:`_PreparedCursor` on Django's connection, wrapped as Django wraps its own (query logging,
    ``execute_wrappers``)."""
    connection = connections[routing.current()]  # a replica inside routing.read
    connection.ensure_connection()
    raw = _PreparedCursor(connection.connection)
    wrapper = _LoggedCursor if connection.queries_logged else CursorWrapper
    return wrapper(raw, connection)
