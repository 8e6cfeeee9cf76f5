"""BM25-style keyword ranking in SQL: the query's terms weighted by their rarity.

Postgres's ``ts_rank_cd`` has no inverse document frequency: "Caroline" (in half of a conversation's
messages, it is a speaker's name) counts as much as "LGBTQ". The ``terms`` CTE gives each query lexeme (the
'english' configuration's stems, stop words dropped) an IDF, and the keyword signals score a candidate by
the IDF of the terms it contains, with BM25's length normalisation (tf is taken as 1: chat turns and claims
are short).

Where the frequencies come from: the planner's statistics (``pg_stats.most_common_elems`` /
``most_common_elem_freqs`` of the generated tsvector columns, kept fresh by autovacuum's ANALYZE), i.e.
across the whole table rather than per user. Counting per user was measured first: on locomo-dev it ranked
no better (message keyword alone frac@10 0.63 per user, 0.64 from whole-corpus frequencies in a simulation),
and counting document frequencies cost 4-12 ms per term at 100k memories (the GIN index is not per user, so
its bitmap for a common word spans every user). A lexeme not among the most common elements is rarer than
the least common one listed: it gets half that frequency. Without statistics (a fresh database) every term
gets ``DEFAULT_FREQUENCY``, i.e. the same weight.

Bounded cost: candidates are the documents matching a *selective* term (frequency ≤
``SELECTIVE_MAX_FREQUENCY``), or the rarest term when none is; common terms still add to the score of those
candidates. At most ``CANDIDATE_CAP`` candidates are scored.
"""

from __future__ import annotations

from typing import Final

#: Frequency of a term when the table has no statistics yet (every term then weighs the same).
DEFAULT_FREQUENCY: Final = 0.01
#: A term in more than this share of documents only scores candidates, it does not select them.
SELECTIVE_MAX_FREQUENCY: Final = 0.05
#: At most this many candidate documents are scored per signal.
CANDIDATE_CAP: Final = 1000
#: BM25 saturation and length normalisation (tf = 1, so k1 only shapes the length factor).
BM25_K1: Final = 1.2
BM25_B: Final = 0.3
#: Query words considered (very long queries add noise and cost).
MAX_TERMS: Final = 32
#: The tables whose tsvector statistics are read, by corpus.
CORPUS_TABLES: Final = {"msg": "memhq_episodemessage", "mem": "memhq_memory"}


def _stats(corpus: str) -> str:
    return f"""(
        SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs
        FROM pg_stats
        WHERE schemaname = current_schema() AND tablename = '{CORPUS_TABLES[corpus]}'
          AND attname = 'search_vector'
        LIMIT 1) AS {corpus}_stats"""


def _frequency(corpus: str) -> str:
    """A term's frequency in the corpus: listed, else half the least listed one, else the default."""
    stats = f"{corpus}_stats"
    least = f"{stats}.freqs[array_length({stats}.freqs, 1) - 2]"
    listed = f"{stats}.freqs[array_position({stats}.elems, t.lexeme)]"
    return f"greatest(coalesce({listed}, {least} / 2, {DEFAULT_FREQUENCY}), 1e-9)"


def terms_cte() -> str:
    """The ``terms`` and ``term_sets`` CTEs (after ``q``)."""
    return f"""terms AS MATERIALIZED (
        SELECT t.lexeme, t.tsq, f.msg_freq, f.mem_freq,
               ln(1 + (1 - least(f.msg_freq, 0.999)) / f.msg_freq) AS msg_idf,
               ln(1 + (1 - least(f.mem_freq, 0.999)) / f.mem_freq) AS mem_idf
        FROM (
            SELECT lexeme, quote_literal(lexeme)::tsquery AS tsq
            FROM unnest(tsvector_to_array(to_tsvector('english', (SELECT qraw FROM q)))) AS lexeme
            LIMIT {MAX_TERMS}
        ) AS t
        LEFT JOIN {_stats("msg")} ON true
        LEFT JOIN {_stats("mem")} ON true
        CROSS JOIN LATERAL (
            SELECT {_frequency("msg")}::float8 AS msg_freq, {_frequency("mem")}::float8 AS mem_freq
        ) AS f
    ), term_sets AS MATERIALIZED (
        SELECT {_selecting("msg")} AS msg_tsq, {_selecting("mem")} AS mem_tsq FROM terms
    )"""


def _selecting(corpus: str) -> str:
    """The OR of the selective terms, else the rarest term alone."""
    freq = f"{corpus}_freq"
    quoted = "quote_literal(lexeme)"
    return f"""coalesce(
            string_agg({quoted}, ' | ') FILTER (WHERE {freq} <= {SELECTIVE_MAX_FREQUENCY}),
            (array_agg({quoted} ORDER BY {freq}, lexeme))[1])::tsquery"""


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
                SELECT {alias}.id, {alias}.search_vector AS sv,
                       greatest(length({alias}.search_vector), 1)::float8 AS len
                FROM {table}
                WHERE {where} AND {alias}.search_vector @@ (SELECT {corpus}_tsq FROM term_sets)
                LIMIT {CANDIDATE_CAP}
            ) AS c
            JOIN terms t ON c.sv @@ t.tsq
            GROUP BY c.id, c.len
        ) AS scored
    """
