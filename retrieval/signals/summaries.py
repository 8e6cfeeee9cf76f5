"""Episode summaries ("what was this conversation about"), by vector similarity, among the user's
``RECENT_EPISODES`` newest episodes.

An episode is visible at ``as_of`` from its first message's document date on. That date is looked up only
for the ``SUMMARY_POOL`` summaries closest to the query (one index probe each), not for every episode of the
user: at 5,000 episodes the per-episode lookup alone took a second. A far-past ``as_of`` can therefore
find fewer summaries than the limit; summaries are context, not evidence, so that is acceptable.
"""

from __future__ import annotations

from typing import Final

from retrieval.signals import SIGNAL_LIMIT, SignalSQL, hits_select

NAME = "summary"
#: Summaries are coarse: fewer of them compete for the final list.
SUMMARY_LIMIT: Final = SIGNAL_LIMIT // 3
#: How many of the closest summaries are checked against ``as_of``.
SUMMARY_POOL: Final = 5 * SUMMARY_LIMIT
#: Only the user's newest episodes are searched (there is no vector index on summaries; older conversations
#: are still found through their messages and memories).
RECENT_EPISODES: Final = 500


def build(limit: int = SUMMARY_LIMIT) -> SignalSQL:
    inner = f"""
        SELECT id, 1 - distance AS score FROM (
            SELECT e.id, e.summary_embedding <=> (SELECT v FROM q) AS distance
            FROM (
                SELECT id, summary_embedding FROM memhq_episode
                WHERE project_id = (SELECT project_id FROM q) AND user_id = (SELECT user_id FROM q)
                ORDER BY received_at DESC
                LIMIT {RECENT_EPISODES}
            ) AS e
            WHERE e.summary_embedding IS NOT NULL
            ORDER BY e.summary_embedding <=> (SELECT v FROM q)
            LIMIT {SUMMARY_POOL}
        ) AS closest
        WHERE (SELECT min(document_date) FROM memhq_episodemessage WHERE episode_id = closest.id)
              <= (SELECT as_of FROM q)
        ORDER BY distance, id
        LIMIT {limit}
    """
    return SignalSQL(NAME, hits_select(NAME, inner, summary_episode_id="id", score="score"))
