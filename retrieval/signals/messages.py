"""Raw conversation: vector kNN and BM25 full-text over episode messages, and full-text over the messages of
episodes not persisted yet (read-your-writes: what the user said a second ago is never invisible).

Filler turns (``ingestion.filler``) are searched like any turn; fusion weighs them (``filler_weight``)."""

from __future__ import annotations

from retrieval.signals import SIGNAL_LIMIT, USER_MESSAGE, SignalSQL, hits_select, nearest
from retrieval.signals.terms import bm25_select

VECTOR = "message_vector"
KEYWORD = "message_keyword"
RECENT = "unprocessed"
#: How many not-yet-persisted episodes of the user are scanned (newest first).
RECENT_EPISODES = 20


def build_vector(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    found = nearest(
        table="memhq_episodemessage msg", alias="msg", where=USER_MESSAGE, exact="messages_exact", limit=limit
    )
    inner = f"""
        SELECT id, 1 - distance AS score FROM ({found}) AS found ORDER BY distance, id
    """
    return SignalSQL(VECTOR, hits_select(VECTOR, inner, message_id="id", score="score"))


def build_keyword(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    ranked = bm25_select(table="memhq_episodemessage msg", alias="msg", where=USER_MESSAGE, corpus="msg")
    inner = f"SELECT r.id, r.score FROM ({ranked}) AS r ORDER BY r.score DESC, r.id DESC LIMIT {limit}"
    return SignalSQL(KEYWORD, hits_select(KEYWORD, inner, message_id="id", score="score"))


def build_unprocessed(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    inner = f"""
        SELECT e.id AS episode_id, (item.ordinality - 1)::int AS idx, item.value->>'content' AS content,
               coalesce(item.value->>'name', item.value->>'role') AS speaker, item.value->>'id' AS caller_id,
               ts_rank_cd(to_tsvector('english', item.value->>'content'), (SELECT tsq FROM q)) AS score
        FROM (
            SELECT id, raw_body FROM memhq_episode
            WHERE project_id = (SELECT project_id FROM q) AND user_id = (SELECT user_id FROM q)
              AND phase_done = 0 AND status <> 'failed'
            ORDER BY received_at DESC LIMIT {RECENT_EPISODES}
        ) AS e
        CROSS JOIN LATERAL jsonb_array_elements(convert_from(e.raw_body, 'UTF8')::jsonb -> 'messages')
            WITH ORDINALITY AS item
        WHERE to_tsvector('english', item.value->>'content') @@ (SELECT tsq FROM q)
        ORDER BY score DESC
        LIMIT {limit}
    """
    return SignalSQL(
        RECENT,
        hits_select(
            RECENT,
            inner,
            raw_episode_id="episode_id",
            raw_index="idx",
            raw_text="content",
            raw_name="speaker",
            raw_caller_id="caller_id",
            score="score",
        ),
    )
