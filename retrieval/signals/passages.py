"""Passages of long messages (``ingestion.passages``): vector kNN and BM25 full text, like the message
signals, over the parts of long turns. A hit is the passage: recall shows the part that matched, and its
votes count for the message it belongs to (``Item.sources``). Term rarity is the messages' (``terms``)."""

from __future__ import annotations

from retrieval.signals import SIGNAL_LIMIT, USER_MESSAGE, SignalSQL, hits_select, nearest
from retrieval.signals.terms import bm25_select

VECTOR = "passage_vector"
KEYWORD = "passage_keyword"


def build_vector(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    found = nearest(
        table="memhq_passage msg", alias="msg", where=USER_MESSAGE, exact="passages_exact", limit=limit
    )
    inner = f"SELECT id, 1 - distance AS score FROM ({found}) AS found ORDER BY distance, id"
    return SignalSQL(VECTOR, hits_select(VECTOR, inner, passage_id="id", score="score"))


def build_keyword(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    ranked = bm25_select(table="memhq_passage msg", alias="msg", where=USER_MESSAGE, corpus="msg")
    inner = f"SELECT r.id, r.score FROM ({ranked}) AS r ORDER BY r.score DESC, r.id DESC LIMIT {limit}"
    return SignalSQL(KEYWORD, hits_select(KEYWORD, inner, passage_id="id", score="score"))
