"""Reciprocal Rank Fusion (Cormack et al. 2009): score(item) = Σ over lists of 1 / (k + rank)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

#: RRF's k: larger flattens the difference between ranks. 60 is the published default.
DEFAULT_K = 60


def rrf(ranked_lists: Mapping[str, Sequence[K]], k: int = DEFAULT_K) -> dict[K, float]:
    """Fuse ranked lists (best first) into one score per item. Pure: no I/O, no randomness."""
    scores: dict[K, float] = {}
    for items in ranked_lists.values():
        for rank, item in enumerate(items, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores
