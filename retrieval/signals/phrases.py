"""Phrase match: of the memories and messages the other signals found, those holding two of the query's words
side by side as the query has them ("the initial deployment of my project" → 'initi' <-> 'deploy',
'deploy' <3> 'project'), ranked by the IDF of the pairs' words (``terms``).

Why: the keyword signals score each word on its own, so a common word of the question ("deadline", in every
planning turn) outweighs two words said once in the question's own order. A pair said as the question says
it is much rarer than either word.

Like the neighbour expansion, this reads the other signals' hits (``base_hits``), still in the same
statement: it re-scores what they found instead of searching the indexes. Searched through the full-text
indexes, a pair of common words ("user" … "like") made Postgres intersect the user's posting lists and
test the words' positions in every row holding both: up to 28 ms of a recall for issue 17's user with
100k memories, for about the gain re-scoring gives (docs/evaluation.md, "Words the question says side by
side").
"""

from __future__ import annotations

from typing import Final

from retrieval.signals import SIGNAL_LIMIT, SignalSQL, hits_select

MEMORY = "memory_phrase"
MESSAGE = "message_phrase"
NAMES: Final = (MEMORY, MESSAGE)
#: Query words at most this far apart (stop words counted) make a pair; the document must have them as far
#: apart. (1, only adjacent words: beam-dev frac@10 −0.006; 5 finds the same as 3.)
MAX_GAP: Final = 3
#: At most this many pairs, the first in the query (a long query would otherwise test hundreds per hit).
MAX_PAIRS: Final = 32


def pairs_cte() -> str:
    """``pairs(a, b, tsq)``: each query lexeme and the next one by position, as a phrase query (each pair
    once, the first ``MAX_PAIRS``)."""
    return f"""pairs AS MATERIALIZED (
        SELECT DISTINCT a, b, (quote_literal(a) || ' <' || gap || '> ' || quote_literal(b))::tsquery AS tsq
        FROM (
            SELECT a, b, gap FROM (
                SELECT pos, lexeme AS a, lead(lexeme) OVER (ORDER BY pos) AS b,
                       lead(pos) OVER (ORDER BY pos) - pos AS gap
                FROM (
                    SELECT word.lexeme, unnest(word.positions) AS pos
                    FROM unnest(to_tsvector('english', (SELECT qraw FROM q))) AS word
                ) AS placed
            ) AS adjacent
            WHERE b IS NOT NULL AND a <> b AND gap <= {MAX_GAP}
            ORDER BY pos
            LIMIT {MAX_PAIRS}
        ) AS firsts
    )"""


def _rescored(*, table: str, alias: str, hit: str, corpus: str, limit: int) -> str:
    return f"""
        SELECT c.id, sum(ta.{corpus}_idf + tb.{corpus}_idf) AS score
        FROM (
            SELECT DISTINCT {alias}.id, {alias}.search_vector AS sv
            FROM base_hits h JOIN {table} ON {alias}.id = h.{hit}
        ) AS c
        JOIN pairs p ON c.sv @@ p.tsq
        JOIN terms ta ON ta.lexeme = p.a
        JOIN terms tb ON tb.lexeme = p.b
        GROUP BY c.id
        ORDER BY score DESC, c.id DESC
        LIMIT {limit}
    """


def build_memory(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    inner = _rescored(table="memhq_memory m", alias="m", hit="memory_id", corpus="mem", limit=limit)
    return SignalSQL(MEMORY, hits_select(MEMORY, inner, memory_id="id", score="score"))


def build_message(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    inner = _rescored(
        table="memhq_episodemessage msg", alias="msg", hit="message_id", corpus="msg", limit=limit
    )
    return SignalSQL(MESSAGE, hits_select(MESSAGE, inner, message_id="id", score="score"))


def build() -> list[SignalSQL]:
    return [build_memory(), build_message()]
