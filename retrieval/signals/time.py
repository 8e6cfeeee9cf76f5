"""Time anchor: when the query names a time ("on 7 July 2023", "last weekend", "in March"), the messages
written in that window, closest to the query first.

The windows are resolved in Python with the ingestion grammar (``ingestion.temporal``) against ``as_of``
and passed as ``q.time_starts`` / ``q.time_ends``; each is widened by ``WINDOW_SLACK_DAYS`` on both sides
(a conversation dated the 8th often reports what happened on the 7th). No window, no hits.

A question about how things began (``retrieval.beginning``: "when I first described my setup", "my original
budget") also searches the user's earliest messages, those of the first tenth of their history: the start
of the user's history is the window it names.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final

from ingestion.temporal import find_time_mentions
from retrieval.signals import SIGNAL_LIMIT, USER_MESSAGE, SignalSQL, hits_select, owned_by_user

NAME = "time"
#: Days added before and after each resolved window.
WINDOW_SLACK_DAYS: Final = 1
#: At most this many windows are used (the first ones named in the query).
MAX_WINDOWS: Final = 4
#: At most this many of the user's messages in the windows (read through the (user, document date) index,
#: oldest first) are compared with the query.
TIME_POOL: Final = 1000
#: A question about the beginning compares the query with the user's messages of the first
#: ``BEGINNING_SHARE`` of their history (first message to last, not to ``as_of``), at most ``BEGINNING_POOL``.
BEGINNING_SHARE: Final = 0.1
BEGINNING_POOL: Final = 200


def windows(text: str, as_of: datetime) -> tuple[list[datetime], list[datetime]]:
    """(starts, ends) of the time windows the query names, resolved against ``as_of``, with slack."""
    slack = timedelta(days=WINDOW_SLACK_DAYS)
    mentions = find_time_mentions(text, as_of)[:MAX_WINDOWS]
    return [m.start - slack for m in mentions], [m.end + slack for m in mentions]


def build(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    inner = f"""
        SELECT id, 1 - distance AS score FROM (
            SELECT msg.id, msg.embedding <=> (SELECT v FROM q) AS distance
            FROM unnest((SELECT time_starts FROM q), (SELECT time_ends FROM q)) AS w(starts, ends)
            CROSS JOIN LATERAL (
                SELECT msg.id, msg.embedding FROM memhq_episodemessage msg
                WHERE {USER_MESSAGE} AND msg.document_date >= w.starts AND msg.document_date < w.ends
                  AND msg.embedding IS NOT NULL
                ORDER BY msg.document_date
                LIMIT {TIME_POOL}
            ) AS msg
            UNION ALL
            SELECT msg.id, msg.embedding <=> (SELECT v FROM q)
            FROM (
                SELECT (SELECT msg.document_date FROM memhq_episodemessage msg
                        WHERE {owned_by_user("msg")} AND msg.document_date IS NOT NULL
                        ORDER BY msg.document_date LIMIT 1) AS first,
                       (SELECT msg.document_date FROM memhq_episodemessage msg
                        WHERE {owned_by_user("msg")} AND msg.document_date <= (SELECT as_of FROM q)
                        ORDER BY msg.document_date DESC LIMIT 1) AS last
                WHERE (SELECT beginning FROM q)
            ) AS history
            CROSS JOIN LATERAL (
                SELECT msg.id, msg.embedding FROM memhq_episodemessage msg
                WHERE {owned_by_user("msg")} AND msg.embedding IS NOT NULL
                  AND msg.document_date <= history.first + {BEGINNING_SHARE} * (history.last - history.first)
                ORDER BY msg.document_date
                LIMIT {BEGINNING_POOL}
            ) AS msg
        ) AS in_window
        GROUP BY id, distance
        ORDER BY distance, id
        LIMIT {limit}
    """
    return SignalSQL(NAME, hits_select(NAME, inner, message_id="id", score="score"))
