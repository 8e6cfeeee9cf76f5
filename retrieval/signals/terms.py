"""BM25-style keyword ranking in SQL: the query's terms weighted by their rarity within the user's data.

Postgres's ``ts_rank_cd`` has no inverse document frequency: "Caroline" (in half of a user's messages, it is
the speaker's name) counts as much as "LGBTQ". The ``terms`` CTE gives each query lexeme (the 'english'
configuration's stems, stop words dropped) its BM25 IDF over the user's messages and over their live
memories; the keyword signals score a candidate by the IDF of the terms it contains, with BM25's length
normalisation (tf is taken as 1: chat turns and claims are short).

Bounded cost (DESIGN §5: one round trip, p50 ≤ 15 ms at 100k memories):
- document frequencies are counted with ``LIMIT DF_CAP`` (a term in more documents is simply "common"), and
  the corpus size with ``LIMIT CORPUS_CAP``;
- candidates are the documents matching a *selective* term (one in at most ``SELECTIVE_MAX_SHARE`` of the
  corpus); common terms still add to the score of those candidates. When every term is common, all terms
  select. Either way at most ``CANDIDATE_CAP`` candidates are scored.
"""

from __future__ import annotations

from typing import Final

#: Document frequencies above this are not counted further (the term is common either way).
DF_CAP: Final = 1000
#: The corpus size is counted up to this many documents.
CORPUS_CAP: Final = 20000
#: A term found in more than this share of the corpus only scores candidates, it does not select them.
SELECTIVE_MAX_SHARE: Final = 0.2
#: At most this many candidate documents are scored per signal.
CANDIDATE_CAP: Final = 2000
#: BM25 saturation and length normalisation (tf = 1, so k1 only shapes the length factor).
BM25_K1: Final = 1.2
BM25_B: Final = 0.3
#: Query words considered (very long queries add noise and cost).
MAX_TERMS: Final = 32

_MESSAGES = "memhq_episodemessage msg"
_MEMORIES = "memhq_memory m"


def _count(table: str, where: str, extra: str, cap: int) -> str:
    return f"(SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {where} {extra} LIMIT {cap}) AS c)"


def _idf(df: str, n: str) -> str:
    return f"ln(1 + ({n} - {df} + 0.5) / ({df} + 0.5))"


def terms_cte(user_message: str, live_memory: str) -> str:
    """The ``corpus`` (the user's message and live-memory counts), ``terms`` and ``term_sets`` CTEs."""
    msg_df = _count(_MESSAGES, user_message, "AND msg.search_vector @@ t.tsq", DF_CAP)
    mem_df = _count(_MEMORIES, live_memory, "AND m.search_vector @@ t.tsq", DF_CAP)
    msgs = _count(_MESSAGES, user_message, "", CORPUS_CAP)
    mems = _count(_MEMORIES, live_memory, "", CORPUS_CAP)
    return f"""corpus AS MATERIALIZED (
        SELECT {msgs}::float8 AS msgs, {mems}::float8 AS mems
    ), terms AS MATERIALIZED (
        SELECT t.lexeme, t.tsq,
               {_idf("d.msg_df", "greatest(n.msgs, d.msg_df)")} AS msg_idf,
               {_idf("d.mem_df", "greatest(n.mems, d.mem_df)")} AS mem_idf,
               d.msg_df <= {SELECTIVE_MAX_SHARE} * n.msgs AS msg_selective,
               d.mem_df <= {SELECTIVE_MAX_SHARE} * n.mems AS mem_selective
        FROM (
            SELECT lexeme, quote_literal(lexeme)::tsquery AS tsq
            FROM unnest(tsvector_to_array(to_tsvector('english', (SELECT qraw FROM q)))) AS lexeme
            LIMIT {MAX_TERMS}
        ) AS t
        CROSS JOIN LATERAL (SELECT {msg_df}::float8 AS msg_df, {mem_df}::float8 AS mem_df) AS d
        CROSS JOIN corpus AS n
    ), term_sets AS MATERIALIZED (
        SELECT coalesce(string_agg(quote_literal(lexeme), ' | ') FILTER (WHERE msg_selective),
                        string_agg(quote_literal(lexeme), ' | '))::tsquery AS msg_tsq,
               coalesce(string_agg(quote_literal(lexeme), ' | ') FILTER (WHERE mem_selective),
                        string_agg(quote_literal(lexeme), ' | '))::tsquery AS mem_tsq
        FROM terms
    )"""


def bm25_select(*, table: str, alias: str, where: str, corpus: str) -> str:
    """Ids of ``table`` rows (``alias``) passing ``where``, best BM25 first, as ``(id, score)``;
    ``corpus`` is ``msg`` or ``mem`` (which IDF and selective query to use)."""
    k1, b = BM25_K1, BM25_B
    return f"""
        SELECT id, idf_sum * {k1 + 1} / (1 + {k1} * (1 - {b} + {b} * len / avg(len) OVER ())) AS score
        FROM (
            SELECT c.id, c.len, sum(t.{corpus}_idf) AS idf_sum
            FROM (
                SELECT {alias}.id, {alias}.search_vector AS sv,
                       greatest(length({alias}.search_vector), 1) AS len
                FROM {table}
                WHERE {where} AND {alias}.search_vector @@ (SELECT {corpus}_tsq FROM term_sets)
                LIMIT {CANDIDATE_CAP}
            ) AS c
            JOIN terms t ON c.sv @@ t.tsq
            GROUP BY c.id, c.len
        ) AS scored
    """
