"""Standing instructions ("Always give me a shell one-liner when I ask about log rotation"): the user's live
instruction memories (``ingestion.extractors.rules_instructions``) nearest to the query, searched on their
own. An instruction applies to every later request on its topic, however the request is worded, so it must
not have to win a place among the facts the other signals bring back; a user has few of them, so the search
is exact (the ``memory_user_predicate`` index narrows it to them)."""

from __future__ import annotations

from typing import Final

from ingestion.extractors.rules_instructions import PREDICATE
from retrieval.signals import LIVE_MEMORY, SignalSQL, hits_select

NAME = "instruction"
#: Instructions are few and each governs a topic: a handful is enough.
INSTRUCTION_LIMIT: Final = 5


def build(limit: int = INSTRUCTION_LIMIT) -> SignalSQL:
    inner = f"""
        SELECT m.id, 1 - (m.embedding <=> (SELECT v FROM q)) AS score
        FROM memhq_memory m
        WHERE {LIVE_MEMORY} AND m.predicate = %s AND m.embedding IS NOT NULL
        ORDER BY m.embedding <=> (SELECT v FROM q), m.id
        LIMIT {limit}
    """
    return SignalSQL(NAME, hits_select(NAME, inner, memory_id="id", score="score"), [PREDICATE])
