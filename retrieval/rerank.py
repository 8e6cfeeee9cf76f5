"""After fusion: nudge the RRF score by importance, reinforcement and recency (relative to ``as_of``)."""

from __future__ import annotations

import math
from datetime import datetime

from retrieval.items import Item

IMPORTANCE_WEIGHT = 0.2
REINFORCE_WEIGHT = 0.1
REINFORCE_SATURATION = 5
RECENCY_WEIGHT = 0.15
RECENCY_HALF_LIFE_DAYS = 180.0


def recency(when: datetime | None, as_of: datetime) -> float:
    """1 for something from ``as_of``, halving every RECENCY_HALF_LIFE_DAYS before it."""
    if when is None:
        return 0.0
    age_days = max((as_of - when).total_seconds() / 86400.0, 0.0)
    return math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS)


def boost(item: Item, as_of: datetime) -> float:
    reinforcement = min(item.reinforce_count, REINFORCE_SATURATION) / REINFORCE_SATURATION
    return (
        1.0
        + IMPORTANCE_WEIGHT * item.importance
        + REINFORCE_WEIGHT * reinforcement
        + RECENCY_WEIGHT * recency(item.when, as_of)
    )


def rerank(items: list[Item], fused: dict[str, float], as_of: datetime) -> list[Item]:
    for item in items:
        item.score = fused[item.key] * boost(item, as_of)
    return sorted(items, key=lambda item: (-item.score, item.key))
