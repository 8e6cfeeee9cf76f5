"""Postgres full-text search over live memories (GIN on the generated tsvector), ranked by ts_rank_cd."""

from __future__ import annotations

from retrieval.signals import LIVE_MEMORY, SIGNAL_LIMIT, SignalSQL, hits_select

NAME = "keyword"


def build(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    inner = f"""
        SELECT m.id FROM memhq_memory m
        WHERE {LIVE_MEMORY} AND m.search_vector @@ (SELECT tsq FROM q)
        ORDER BY ts_rank_cd(m.search_vector, (SELECT tsq FROM q)) DESC, m.importance DESC
        LIMIT {limit}
    """
    return SignalSQL(NAME, hits_select(NAME, inner, memory_id="id"))
