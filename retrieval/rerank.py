"""Between the votes and their spreading over messages (``retrieval.fusion``): nudge each item's own vote by
importance, reinforcement and recency (relative to ``as_of``); then the final order.

The nudges are small multipliers (at most +45% together), so they reorder near-ties and never bury an
old fact that matched well: on locomo-dev, where most evidence is months older than the question, a
recency weight of 0.15 (half-life 180 days) changes frac@10 by < 0.005 and 0.3 costs 0.01.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime

from retrieval.config import RetrievalConfig
from retrieval.items import Item


def recency(when: datetime | None, as_of: datetime, half_life_days: float) -> float:
    """1 for something from ``as_of``, halving every ``half_life_days`` before it."""
    if when is None:
        return 0.0
    age_days = max((as_of - when).total_seconds() / 86400.0, 0.0)
    return math.pow(0.5, age_days / half_life_days)


def boost(item: Item, as_of: datetime, config: RetrievalConfig) -> float:
    reinforcement = min(item.reinforce_count, config.reinforce_saturation) / config.reinforce_saturation
    return (
        1.0
        + config.importance_weight * item.importance
        + config.reinforce_weight * reinforcement
        + config.recency_weight * recency(item.when, as_of, config.recency_half_life_days)
    )


def rerank(items: Mapping[str, Item], as_of: datetime, config: RetrievalConfig) -> dict[str, Item]:
    """Every item with its vote scaled by its :func:`boost`."""
    return {key: item.copy_with(vote=item.vote * boost(item, as_of, config)) for key, item in items.items()}


#: Of items standing for the same messages (equal scores), which is shown: the memory (the distilled fact,
#: with its validity: a superseded one says so, its raw message would not), then the passage that matched
#: (rather than the start of its long message), then the rest.
TYPE_ORDER = {"memory": 0, "passage": 1}


def ordered(items: list[Item]) -> list[Item]:
    """Best first: fused score; of items standing for the same messages (equal scores) by ``TYPE_ORDER``,
    then the one the signals found more directly; then the key (stable)."""
    return sorted(items, key=lambda item: (-item.score, TYPE_ORDER.get(item.type, 2), -item.vote, item.key))
