"""Episode summaries ("what was this conversation about"), by vector similarity."""

from __future__ import annotations

from retrieval.signals import SIGNAL_LIMIT, SignalSQL, hits_select

NAME = "summary"
#: Summaries are coarse: fewer of them compete for the final list.
SUMMARY_LIMIT = SIGNAL_LIMIT // 3


def build(limit: int = SUMMARY_LIMIT) -> SignalSQL:
    inner = f"""
        SELECT id FROM memhq_episode e
        WHERE e.project_id = (SELECT project_id FROM q) AND e.user_id = (SELECT user_id FROM q)
          AND e.summary_embedding IS NOT NULL
          AND (SELECT min(document_date) FROM memhq_episodemessage WHERE episode_id = e.id)
              <= (SELECT as_of FROM q)
        ORDER BY e.summary_embedding <=> (SELECT v FROM q)
        LIMIT {limit}
    """
    return SignalSQL(NAME, hits_select(NAME, inner, summary_episode_id="id"))
