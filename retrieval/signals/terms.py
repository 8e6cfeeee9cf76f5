"""BM25-style keyword ranking in SQL: the query's terms weighted by their rarity within the user's data.

Postgres's ``ts_rank_cd`` has no inverse document frequency: "Rosalind" (in half of a conversation's
messages, it is a speaker's name) counts as much as "pgvector". The ``terms`` CTE gives each query lexeme (the
'english' configuration's stems, stop words dropped) a BM25 IDF, and the keyword signals score a candidate
by the IDF of the terms it contains, with BM25's length normalisation (tf is taken as 1: chat turns and
claims are short).

Where the document frequencies come from: a sample of the user's own documents (``SAMPLE_SIZE`` messages
and as many live memories, read through the per-user index), in which every query term is counted. The
messages are the user's latest by date (as of the question), read backwards along the (project, user,
date) index, which stops at the sample's size: the filter (``SAMPLED_USER_MESSAGE``) leaves the user to
the index and the date to a filter. With the date in the index condition (``IS NULL OR <= as_of``)
Postgres ORed two bitmaps of all the user's entries: 6.9 ms of a 60k-message user's recall (0.2 ms now),
and the sample was the first rows in storage order, which every update reshuffles. On the same stored
data: beam-dev frac@10 −0.000 [−0.016, +0.019], session all@3 +0.042 [+0.014, +0.077]; locomo-dev
−0.004 [−0.012, +0.002]. (The user's earliest messages instead: beam-dev frac@5 −0.036 [−0.065, −0.011].)
Tried and dropped: exact per-user counts (4-12 ms per term at 100k memories: the GIN index is not per user, so
its bitmap for a common word spans every user) and the planner's statistics (``pg_stats``: free, but
whole-table, and only as fresh as the last ANALYZE: a fresh locomo-dev run scored frac@10 0.71 instead of
0.79 because the statistics predated most of the data).

Bounded cost: candidates are the documents matching a *selective* term (in at most
``SELECTIVE_MAX_SHARE`` of the sample). When no term is selective and the user has more documents than the
sample, there are no candidates: every term is common, so full text cannot tell the documents apart ("what
does Ana like" where both words are everywhere) and the vector signals answer. This used to select the
documents having all the terms, the first ``CANDIDATE_CAP`` in storage order: at 100k synthetic memories
the GIN scan alone took 4-8 ms (intersecting the user's posting tree with two common words' ones) for a
near-arbitrary candidate set, and on locomo-dev dropping it moved frac@10 by -0.0003 and multi-hop
all@10 not at all. A corpus no bigger than the sample selects with its rarest term (all of it is cheap to
score). Common terms still add to the score of the candidates. At most ``CANDIDATE_CAP`` are scored.

Counted once, read once: the samples and the candidates hold their documents' vectors ``strip``ped (the
lexemes without positions, which a one-lexeme match does not need). A long message's vector is stored out
of line, and a CTE keeps the pointer, so every match against the full vector fetched and decompressed it
again. The counts' subquery is kept whole (``OFFSET 0``): pulled up, the planner copied each count into
every expression using it (the IDF, the selectivity test), and each sample was scanned four times per
term. On beam-dev's long turns (every question asked twice, same stored data) the statement went from 36.4
to 28.0 ms p50, the term statistics of one question from 14.7 to 2.7 ms; locomo-dev 13.6 → 12.2 ms; the
rows identical for every question of both sets.
"""

from __future__ import annotations

from typing import Final

#: Documents of each kind the term frequencies are counted in.
SAMPLE_SIZE: Final = 300
#: A term in more than this share of the sample only scores candidates, it does not select them.
SELECTIVE_MAX_SHARE: Final = 0.05
#: At most this many candidate documents are scored per signal.
CANDIDATE_CAP: Final = 300
#: BM25 saturation and length normalisation (tf = 1, so k1 only shapes the length factor).
BM25_K1: Final = 1.2
BM25_B: Final = 0.3
#: Query words considered (very long queries add noise and cost).
MAX_TERMS: Final = 32


def _idf(df: str, n: str) -> str:
    return f"ln(1 + ({n} - {df} + 0.5) / ({df} + 0.5))"


def terms_cte(user_message: str, live_memory: str) -> str:
    """The ``msg_sample``, ``mem_sample``, ``terms`` and ``term_sets`` CTEs (after ``q``)."""
    return f"""msg_sample AS MATERIALIZED (
        SELECT strip(msg.search_vector) AS sv FROM memhq_episodemessage msg WHERE {user_message}
        ORDER BY msg.document_date DESC LIMIT {SAMPLE_SIZE}
    ), mem_sample AS MATERIALIZED (
        SELECT strip(m.search_vector) AS sv FROM memhq_memory m WHERE {live_memory} LIMIT {SAMPLE_SIZE}
    ), terms AS MATERIALIZED (
        SELECT t.lexeme, t.tsq, c.msg_df, c.mem_df,
               {_idf("c.msg_df", "c.msg_n")} AS msg_idf, {_idf("c.mem_df", "c.mem_n")} AS mem_idf,
               c.msg_df <= {SELECTIVE_MAX_SHARE} * c.msg_n AS msg_selective,
               c.mem_df <= {SELECTIVE_MAX_SHARE} * c.mem_n AS mem_selective
        FROM (
            SELECT lexeme, quote_literal(lexeme)::tsquery AS tsq
            FROM unnest(tsvector_to_array(to_tsvector('english', (SELECT qraw FROM q)))) AS lexeme
            LIMIT {MAX_TERMS}
        ) AS t
        CROSS JOIN LATERAL (
            SELECT (SELECT count(*) FILTER (WHERE sv @@ t.tsq) FROM msg_sample)::float8 AS msg_df,
                   (SELECT count(*) FROM msg_sample)::float8 AS msg_n,
                   (SELECT count(*) FILTER (WHERE sv @@ t.tsq) FROM mem_sample)::float8 AS mem_df,
                   (SELECT count(*) FROM mem_sample)::float8 AS mem_n
            OFFSET 0
        ) AS c
    ), term_sets AS MATERIALIZED (
        SELECT {_selecting("msg")} AS msg_tsq, {_selecting("mem")} AS mem_tsq FROM terms
    )"""


def _selecting(corpus: str) -> str:
    """The OR of the selective terms; else, when the user has more documents than the sample holds, NULL
    (no candidates: every term is common); else the rarest term alone."""
    quoted = "quote_literal(lexeme)"
    return f"""CASE
            WHEN bool_or({corpus}_selective)
                THEN string_agg({quoted}, ' | ') FILTER (WHERE {corpus}_selective)::tsquery
            WHEN (SELECT count(*) FROM {corpus}_sample) >= {SAMPLE_SIZE} THEN NULL::tsquery
            ELSE (array_agg({quoted} ORDER BY {corpus}_df, lexeme))[1]::tsquery
        END"""


def bm25_select(*, table: str, alias: str, where: str, corpus: str) -> str:
    """Ids of ``table`` rows (``alias``) passing ``where``, best BM25 first, as ``(id, score)``;
    ``corpus`` is ``msg`` or ``mem`` (which IDF and selective query to use)."""
    k1, b = BM25_K1, BM25_B
    length_norm = f"(1 + {k1}::float8 * (1 - {b}::float8 + {b}::float8 * len / avg(len) OVER ()))"
    return f"""
        SELECT id, idf_sum * {k1 + 1}::float8 / {length_norm} AS score
        FROM (
            SELECT c.id, c.len, sum(t.{corpus}_idf) AS idf_sum
            FROM (
                SELECT {alias}.id, strip({alias}.search_vector) AS sv,
                       greatest(length({alias}.search_vector), 1)::float8 AS len
                FROM {table}
                WHERE {where} AND {alias}.search_vector @@ (SELECT {corpus}_tsq FROM term_sets)
                LIMIT {CANDIDATE_CAP}
            ) AS c
            JOIN terms t ON c.sv @@ t.tsq
            GROUP BY c.id, c.len
        ) AS scored
    """
