"""Full-text search over live memories (GIN on the generated tsvector), ranked by BM25 with the IDF of each
query term over the user's live memories (see ``retrieval.signals.terms``)."""

from __future__ import annotations

from retrieval.signals import LIVE_MEMORY, SIGNAL_LIMIT, SignalSQL, hits_select
from retrieval.signals.terms import bm25_select

NAME = "keyword"


def build(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    ranked = bm25_select(table="memhq_memory m", alias="m", where=LIVE_MEMORY, corpus="mem")
    inner = f"""
        SELECT r.id, r.score FROM ({ranked}) AS r
        ORDER BY r.score DESC, r.id
        LIMIT {limit}
    """
    return SignalSQL(NAME, hits_select(NAME, inner, memory_id="id", score="score"))
