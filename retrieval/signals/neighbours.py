"""Neighbour expansion: the turns next to the best hits. Evidence is often a neighbour of what matched: the
answer after a question that matched, the speaker's next turn that goes on with the story.

Seeds are the top ``SEEDS_PER_SIGNAL`` hits of the message signals, the messages of the top passages, and
the source messages of the top hits of the memory signals (their evidence). For each seed the messages at
``OFFSETS`` (same episode) are returned, best seed first, ``SIGNAL_LIMIT`` at most. The rows have no
score of their own: fusion gives a message next to one of the best messages a share of that message's fused
score (``RetrievalConfig.neighbour_weights``), so a neighbour only rises with a seed that ranks high.

Unlike the other signals this one reads the others' hits (``base_hits``), still in the same statement.
"""

from __future__ import annotations

from typing import Final

from retrieval.signals import SIGNAL_LIMIT, SignalSQL, hits_select

NAME = "neighbour"
#: Positions relative to the seed, most useful first (the next turn, the speaker's own next turn, the ones
#: before). Fusion weighs each (``RetrievalConfig.neighbour_weights``).
OFFSETS: Final = (1, 2, -1, -2)
#: How many top hits of each signal seed neighbours.
SEEDS_PER_SIGNAL: Final = 5
MESSAGE_SIGNALS: Final = ("message_vector", "message_keyword", "time", "message_vector_e5")
PASSAGE_SIGNALS: Final = ("passage_vector", "passage_keyword")
MEMORY_SIGNALS: Final = ("vector", "keyword")


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(f"'{name}'" for name in names)


def build(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    offsets = ", ".join(str(offset) for offset in OFFSETS)
    inner = f"""
        SELECT nb.id
        FROM (
            SELECT episode_id, idx, min(rank) AS best FROM (
                SELECT msg.episode_id, msg.index AS idx, h.rank
                FROM base_hits h JOIN memhq_episodemessage msg ON msg.id = h.message_id
                WHERE h.signal IN ({_names(MESSAGE_SIGNALS)}) AND h.rank <= {SEEDS_PER_SIGNAL}
                UNION ALL
                SELECT pa.episode_id, pa.message_index AS idx, h.rank
                FROM base_hits h JOIN memhq_passage pa ON pa.id = h.passage_id
                WHERE h.signal IN ({_names(PASSAGE_SIGNALS)}) AND h.rank <= {SEEDS_PER_SIGNAL}
                UNION ALL
                SELECT ev.episode_id, source.idx, h.rank
                FROM base_hits h JOIN memhq_evidence ev ON ev.memory_id = h.memory_id
                CROSS JOIN LATERAL unnest(ev.message_indexes) AS source(idx)
                WHERE h.signal IN ({_names(MEMORY_SIGNALS)}) AND h.rank <= {SEEDS_PER_SIGNAL}
                  AND ev.episode_id IS NOT NULL
            ) AS seeded GROUP BY episode_id, idx
        ) AS s
        CROSS JOIN unnest(ARRAY[{offsets}]) WITH ORDINALITY AS o(step, preference)
        JOIN memhq_episodemessage nb ON nb.episode_id = s.episode_id AND nb.index = s.idx + o.step
        WHERE (nb.document_date IS NULL OR nb.document_date <= (SELECT as_of FROM q))
        ORDER BY s.best, o.preference, nb.id
        LIMIT {limit}
    """
    return SignalSQL(NAME, hits_select(NAME, inner, message_id="id"))
