"""The second embedder's vector kNN over what the user said (``memhq.ai.e5``, on when
``MEMHQ_SECOND_EMBEDDER`` is): the search of :func:`retrieval.signals.messages.build_vector` with e5's
vectors (``embedding_e5`` against the query's ``q.v2``). A second model family's nearest neighbours make
other mistakes than MiniLM's, so fusion votes them out.

Only messages are searched: on locomo-dev (one ingest, replayed) e5 over messages moved frac@10 0.826 →
0.835, e5 over memories as well 0.836, over memories alone 0.814."""

from __future__ import annotations

from retrieval.signals import SIGNAL_LIMIT, USER_MESSAGE, SignalSQL, hits_select, nearest

NAME = "message_vector_e5"


def build(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    found = nearest(
        table="memhq_episodemessage msg",
        alias="msg",
        where=USER_MESSAGE,
        exact="messages_exact",
        limit=limit,
        column="embedding_e5",
        query="v2",
    )
    inner = f"SELECT id, 1 - distance AS score FROM ({found}) AS found ORDER BY distance, id"
    return SignalSQL(NAME, hits_select(NAME, inner, message_id="id", score="score"))
