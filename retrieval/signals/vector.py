"""Vector kNN over live memories (cosine): exact for a user with few memories, else HNSW, where
``hnsw.iterative_scan`` keeps the per-user filter yielding k rows (see ``retrieval.signals.nearest``); the
hits are re-sorted by distance because the scan order is relaxed."""

from __future__ import annotations

from retrieval.signals import LIVE_MEMORY, SIGNAL_LIMIT, SignalSQL, hits_select, nearest

NAME = "vector"


def build(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    found = nearest(table="memhq_memory m", alias="m", where=LIVE_MEMORY, exact="memories_exact", limit=limit)
    inner = f"SELECT id, 1 - distance AS score FROM ({found}) AS found ORDER BY distance, id"
    return SignalSQL(NAME, hits_select(NAME, inner, memory_id="id", score="score"))
