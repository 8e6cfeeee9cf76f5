"""Vector kNN over live memories (HNSW, cosine). With ``hnsw.iterative_scan`` the per-user filter still
yields k rows; the CTE is materialised and re-sorted by distance because the scan order is relaxed."""

from __future__ import annotations

from retrieval.signals import LIVE_MEMORY, SIGNAL_LIMIT, SignalSQL, hits_select

NAME = "vector"


def build(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    inner = f"""
        SELECT id, 1 - distance AS score FROM (
            SELECT m.id, m.embedding <=> (SELECT v FROM q) AS distance
            FROM memhq_memory m
            WHERE {LIVE_MEMORY} AND m.embedding IS NOT NULL
            ORDER BY m.embedding <=> (SELECT v FROM q)
            LIMIT {limit}
        ) AS nearest ORDER BY distance
    """
    return SignalSQL(NAME, hits_select(NAME, inner, memory_id="id", score="score"))
