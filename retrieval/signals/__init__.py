"""One module per retrieval signal. Each returns a SQL SELECT that yields ranked hits in the common shape
(``signal``, ``rank`` and ``HIT_COLUMNS``), reading the query context from the CTEs that ``retrieval.query``
puts first:

    q(v vector, v2 vector, tsq tsquery, project_id uuid, user_id text, as_of timestamptz, history bool,
      qtext text, qwords text[], type_hints text[], time_starts timestamptz[], time_ends timestamptz[],
      known_sizes text)
    terms(lexeme text, tsq tsquery, msg_idf float8, mem_idf float8, ...),
    term_sets(msg_tsq tsquery, mem_tsq tsquery)                                (see retrieval.signals.terms)

    sizes(memories_exact bool, messages_exact bool, entities_exact bool, passages_exact bool)
                                                                        (see :func:`sizes_cte`)

A hit is a memory (``memory_id``), an episode message (``message_id``), a passage of a long message
(``passage_id``), an episode summary
(``episode_id``), or a message of an episode not persisted yet (``raw_*`` columns). ``score`` is the signal's
own relevance (higher is better; fusion normalises it per signal).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memhq.selectors import nearest as selectors_nearest
from retrieval import sizes

#: The hit shape every signal yields (after ``signal`` and ``rank``), with each column's SQL type.
HIT_COLUMNS = {
    "memory_id": "uuid",
    "message_id": "bigint",
    "passage_id": "bigint",
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
#: A user with at most this many rows in a table is searched exactly, above it through the table's HNSW
#: index (why: ``memhq.selectors.nearest``).
EXACT_KNN_MAX_ROWS = selectors_nearest.EXACT_KNN_MAX_ROWS
#: ...unless they hold more than this many rows and at least this share of the table (:func:`sizes_cte`).
WALK_MIN_ROWS = 1000
WALK_MIN_SHARE = 0.5


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


def sizes_cte() -> str:
    """``sizes``: per table, whether the user's rows are searched exactly: what ``q`` says (``known_sizes``,
    remembered by ``retrieval.sizes``), else counted (each count stops at ``EXACT_KNN_MAX_ROWS + 1`` index
    entries; a count is an init plan, run only when ``q`` says nothing).

    A user above ``WALK_MIN_ROWS`` who holds at least ``WALK_MIN_SHARE`` of the table's rows (the planner's
    ``reltuples``, kept by autovacuum; unknown, -1, for a table never analysed) is searched through the HNSW
    index even below ``EXACT_KNN_MAX_ROWS``: the walk meets the user's rows at least every other row, so it
    is as good as on an unfiltered index, and much cheaper than comparing every row. (Issue 17's big user:
    5,000 entities of 7,100; the exact nearest entities cost 5.6 ms of a recall.)"""

    def few(table: str, flag: str) -> str:
        position = sizes.FLAGS.index(flag) + 1
        known = f"nullif(substr((SELECT known_sizes FROM q), {position}, 1), '')::bool"
        share = f"""(SELECT CASE WHEN reltuples > 0 THEN {WALK_MIN_SHARE} * reltuples ELSE 'infinity' END
            FROM pg_class WHERE oid = '{table}'::regclass)"""
        walked = f"n > {WALK_MIN_ROWS} AND n >= {share}"
        return f"""coalesce({known}, (SELECT n <= {EXACT_KNN_MAX_ROWS} AND NOT ({walked})
            FROM (SELECT count(*) AS n FROM (
                SELECT 1 FROM {table}
                WHERE project_id = (SELECT project_id FROM q) AND user_id = (SELECT user_id FROM q)
                LIMIT {EXACT_KNN_MAX_ROWS + 1}) AS counted) AS counts)) AS {flag}"""

    return f"""sizes AS MATERIALIZED (
        SELECT {few("memhq_memory", "memories_exact")}, {few("memhq_episodemessage", "messages_exact")},
               {few("memhq_entity", "entities_exact")}, {few("memhq_passage", "passages_exact")})"""


def owned_by_user(alias: str) -> str:
    """``alias``'s row belongs to the asking user: what every signal's filter starts with."""
    return f"{alias}.project_id = (SELECT project_id FROM q) AND {alias}.user_id = (SELECT user_id FROM q)"


def _owned_by_user_unindexed(alias: str) -> str:
    """:func:`owned_by_user` in a form no index can answer and the planner does not think selective.

    In the HNSW branch of :func:`nearest` the planner must walk the vector index. The user is a parameter of
    the prepared statement, so Postgres estimates any user's share of a table as 1/n_distinct: a user with
    half of a table's rows looked like 0.3% of it, and the planner filtered on the per-user indexes first and
    computed every one of the user's distances (a realistic user with 60k messages beside 100 others: the
    message signal alone 91 ms, issue 17). Written as ``coalesce(a = b, false)`` each test is a plain
    boolean expression to the planner: no index matches it, and its selectivity is the default 0.5, so the
    index walk (which stops after ``limit`` rows pass) is the cheapest plan. The user's real size is known
    here (``sizes``: above ``EXACT_KNN_MAX_ROWS``), so the walk is what is wanted."""
    return (
        f"coalesce({alias}.project_id = (SELECT project_id FROM q), false)"
        f" AND coalesce({alias}.user_id = (SELECT user_id FROM q), false)"
    )


def owner_unindexed(where: str, alias: str) -> str:
    """``where`` with its :func:`owned_by_user` test in the form no index answers (see
    :func:`_owned_by_user_unindexed`), for a scan that must take its rows from another index."""
    return where.replace(owned_by_user(alias), _owned_by_user_unindexed(alias))


def nearest(
    *, table: str, alias: str, where: str, exact: str, limit: int, column: str = "embedding", query: str = "v"
) -> str:
    """The ``limit`` rows of ``table`` (``alias``) passing ``where`` nearest to the query vector, as
    ``(id, distance)`` (not ordered). ``exact`` names the ``sizes`` column that picks the way: the exact
    branch computes every distance (``OFFSET 0`` keeps the planner from answering its ORDER BY with the
    HNSW index), the other walks the HNSW index with iterative scans. The branch not taken is skipped by a
    one-time filter, so it costs nothing. ``where`` must start from :func:`owned_by_user`: the index walk
    tests it in a form no other index can serve. ``column`` is the vector searched, ``query`` the ``q``
    column it is compared with (the second embedder's: ``embedding_e5`` and ``v2``)."""
    owner = owned_by_user(alias)
    if owner not in where:
        raise ValueError(f"a kNN filter must contain {owner!r}")
    walked = owner_unindexed(where, alias)
    distance = f"{alias}.{column} <=> (SELECT {query} FROM q)"
    return f"""
        (SELECT id, distance FROM (
            SELECT {alias}.id, {distance} AS distance FROM {table}
            WHERE {where} AND {alias}.{column} IS NOT NULL OFFSET 0) AS scanned
         WHERE (SELECT {exact} FROM sizes)
         ORDER BY distance LIMIT {limit})
        UNION ALL
        (SELECT {alias}.id, {distance} AS distance FROM {table}
         WHERE NOT (SELECT {exact} FROM sizes) AND {walked} AND {alias}.{column} IS NOT NULL
         ORDER BY {distance} LIMIT {limit})"""


LIVE_MEMORY = f"""
    {owned_by_user("m")}
    AND m.status IN ('active', 'superseded') AND m.indexed_at IS NOT NULL
    AND ((SELECT history FROM q) OR (
        m.valid_from <= (SELECT as_of FROM q)
        AND (m.valid_until IS NULL OR m.valid_until > (SELECT as_of FROM q))))
"""

USER_MESSAGE = f"""
    {owned_by_user("msg")}
    AND (msg.document_date IS NULL OR msg.document_date <= (SELECT as_of FROM q))
"""

#: :data:`USER_MESSAGE` as one index condition (the user) and a filter, for a scan that stops after a few of
#: the user's rows: the ``IS NULL OR`` form above makes Postgres OR two bitmaps of all the user's entries.
SAMPLED_USER_MESSAGE = f"""
    {owned_by_user("msg")}
    AND coalesce(msg.document_date <= (SELECT as_of FROM q), true)
"""
