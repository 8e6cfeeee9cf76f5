"""Reciprocal Rank Fusion (Cormack et al. 2009): score(item) = Σ over lists of 1 / (k + rank)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

#: RRF's k: larger flattens the difference between ranks. 60 is the published default.
DEFAULT_K = 60


def rrf(
    ranked_lists: Mapping[str, Sequence[K]], k: int = DEFAULT_K, weights: Mapping[str, float] | None = None
) -> dict[K, float]:
    """Fuse ranked lists (best first) into one score per item; ``weights`` scale a list's votes (default 1).

    Pure: no I/O, no randomness.
    """
    scores: dict[K, float] = {}
    for name, items in ranked_lists.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, item in enumerate(items, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores
