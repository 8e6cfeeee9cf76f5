"""One module per retrieval signal. Each returns a SQL SELECT that yields ranked hits in the common shape
(``signal``, ``rank`` and ``HIT_COLUMNS``), reading the query context from the CTEs that ``retrieval.query``
puts first:

    q(v vector, v2 vector, tsq tsquery, project_id uuid, user_id text, as_of timestamptz, history bool,
      qtext text, qwords text[], type_hints text[], time_starts timestamptz[], time_ends timestamptz[],
      beginning bool, known_sizes text)
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
#: How each table is searched for a user (:func:`sizes_cte`): exactly while the user's rows ``n`` satisfy
#: ``n² ≤ WALK_COST_RATIO × N`` (``N``: the table's rows), through the HNSW index above that; never walked at
#: or below ``WALK_MIN_ROWS``, never exact above ``EXACT_KNN_CEILING``; ``EXACT_KNN_MAX_ROWS`` when ``N`` is
#: not known (a table never analysed).
WALK_COST_RATIO = 600
WALK_MIN_ROWS = 1000
EXACT_KNN_CEILING = 50_000
EXACT_KNN_MAX_ROWS = selectors_nearest.EXACT_KNN_MAX_ROWS


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
    remembered by ``retrieval.sizes``), else counted (each count stops one past the table's limit; a count is
    an init plan, run only when ``q`` says nothing).

    The limit weighs the two ways' costs. An exact search reads each of the user's ``n`` rows (~1.1 µs a
    row and vector: 5.6 ms for 5,000 entities). A walk of the HNSW index filtered to the user visits about
    1/share of the rows an unfiltered walk does: for a user holding 1.6% of 366,000 messages the two message
    walks took 16 and 46 ms (the second embedder's vectors, on user turns only, are sparser), ~1.0 ms × the
    table's rows / ``n``. Exact is the cheaper while ``n² ≤ WALK_COST_RATIO × N``: issue 17's big user
    (5,000 of 7,100 entities, 100,000 of 122,000 memories) walks; a user with 6,000 of 366,000 messages is
    compared exactly (recall's statement 71 → 39 ms p50 on that benchmark database). The table's size is
    the planner's ``reltuples`` (kept by autovacuum; -1 for a table never analysed, which falls back to
    ``EXACT_KNN_MAX_ROWS``)."""

    def few(table: str, flag: str) -> str:
        position = sizes.FLAGS.index(flag) + 1
        known = f"nullif(substr((SELECT known_sizes FROM q), {position}, 1), '')::bool"
        limit = f"""(SELECT least({EXACT_KNN_CEILING}, CASE WHEN reltuples > 0
                THEN greatest({WALK_MIN_ROWS}, floor(sqrt({WALK_COST_RATIO} * reltuples)))::int
                ELSE {EXACT_KNN_MAX_ROWS} END)
            FROM pg_class WHERE oid = '{table}'::regclass)"""
        return f"""coalesce({known}, (SELECT count(*) FROM (
            SELECT 1 FROM {table}
            WHERE project_id = (SELECT project_id FROM q) AND user_id = (SELECT user_id FROM q)
            LIMIT {limit} + 1) AS counted) <= {limit}) AS {flag}"""

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
    here (``sizes``: too many rows to compare each), so the walk is what is wanted."""
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


#: The memories recall may return: valid at ``as_of``, or with ``history`` any that started by then (never
#: one that started after ``as_of``: history is the past of that moment).
LIVE_MEMORY = f"""
    {owned_by_user("m")}
    AND m.status IN ('active', 'superseded') AND m.indexed_at IS NOT NULL
    AND m.valid_from <= (SELECT as_of FROM q)
    AND ((SELECT history FROM q) OR m.valid_until IS NULL OR m.valid_until > (SELECT as_of FROM q))
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
