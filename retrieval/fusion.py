"""Fusion: from each signal's ranked, scored hits to one score per item. Pure: no I/O, no randomness.

1. **Votes.** Each signal's scores are min-max normalised over its own hits (so a cosine and a BM25 score
   become comparable) and weighted (``weights``); an item's vote is the sum over the signals that found it.
   On locomo-dev this beat Reciprocal Rank Fusion at any k (k = 60: frac@10 0.66, k = 5: 0.70, min-max
   0.71 with the rest equal): ranks throw away how far ahead the best hit is.
2. **Speaker.** A message spoken by, or a memory about, someone the query names gets ``speaker_boost``
   ("what did Sara say about the budget" → Sara's own turns).
3. **Agreement across items.** A memory and the message it was distilled from are the same evidence: votes
   are added up per stored message (``Item.sources``), a memory's vote counting ``memory_share`` (split
   over its sources), so a message found by the message signals *and* through its memories ranks above
   one found once.
4. **Neighbours.** A message at ``offset`` turns from one of the ``neighbour_seeds`` best messages gets
   ``neighbour_weights[offset]`` × that message's score, whichever signal found it (the ``neighbour``
   signal brings in the turns next to the best hits that no other signal found).
5. An item scores the best of its messages (an item without stored messages keeps its vote). Items whose
   messages are all carried by a better item are dropped by :func:`dedupe` (their ranks go with it).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from retrieval.items import Item

_WORD = re.compile(r"[a-z0-9]+")

#: RRF's k: larger flattens the difference between ranks. 60 is the published default.
NEIGHBOUR = "neighbour"


@dataclass(frozen=True)
class FusionSettings:
    """What ``settings.MEMHQ_*`` says (see config/settings.py); the steps above use these."""

    weights: Mapping[str, float]
    memory_share: float
    speaker_boost: float
    neighbour_weights: Mapping[int, float]
    neighbour_seeds: int


@dataclass(frozen=True)
class Hit:
    signal: str
    key: str  # Item.key
    score: float | None


def normalise(scores: Sequence[float | None]) -> list[float]:
    """Min-max over one signal's hits: best 1, worst 0; all 1 when they tie (or when scores are missing)."""
    known = [score for score in scores if score is not None]
    if not known:
        return [1.0] * len(scores)
    low, high = min(known), max(known)
    span = high - low
    return [1.0 if score is None or span <= 0 else (score - low) / span for score in scores]


def _votes(hits: Sequence[Hit], weights: Mapping[str, float]) -> dict[str, float]:
    by_signal: dict[str, list[Hit]] = defaultdict(list)
    for hit in hits:
        if hit.signal != NEIGHBOUR:
            by_signal[hit.signal].append(hit)
    votes: dict[str, float] = defaultdict(float)
    for signal, signal_hits in by_signal.items():
        weight = weights.get(signal, 1.0)
        for hit, value in zip(signal_hits, normalise([hit.score for hit in signal_hits]), strict=True):
            votes[hit.key] += weight * value
    return votes


def named(item: Item, query_words: set[str]) -> bool:
    """Is the item's speaker (message) or subject (memory) named in the query?"""
    words = _WORD.findall(item.anchor.lower())
    return bool(words) and all(word in query_words for word in words)


def _spread_to_neighbours(per_message: dict[str, float], settings: FusionSettings) -> None:
    """Give the stored messages next to the best ones a share of their score (adjacency is read off the
    sources, "<episode>:<index>", so a neighbour counts whichever signal brought it in)."""
    seeds = sorted(per_message, key=lambda source: (-per_message[source], source))[: settings.neighbour_seeds]
    gains: dict[str, float] = {}
    for seed in seeds:
        episode, _, index = seed.rpartition(":")
        if not index.isdigit():
            continue
        for offset, weight in settings.neighbour_weights.items():
            source = f"{episode}:{int(index) + offset}"
            if source in per_message:
                gains[source] = max(gains.get(source, 0.0), weight * per_message[seed])
    for source, gain in gains.items():
        per_message[source] += gain


def vote(items: Mapping[str, Item], hits: Sequence[Hit], query: str, settings: FusionSettings) -> None:
    """Steps 1-2: set every item's own ``vote``."""
    votes = _votes(hits, settings.weights)
    query_words = set(_WORD.findall(query.lower()))
    for key, item in items.items():
        item.vote = votes.get(key, 0.0)
        if settings.speaker_boost and named(item, query_words):
            item.vote *= 1 + settings.speaker_boost


def spread(items: Mapping[str, Item], settings: FusionSettings) -> None:
    """Steps 3-5: set every item's ``score`` from the votes of all items standing for the same messages."""
    per_message: dict[str, float] = defaultdict(float)
    for item in items.values():
        share = settings.memory_share / len(item.sources) if item.type == "memory" and item.sources else 1.0
        for source in item.sources:
            per_message[source] += item.vote * share
    if settings.neighbour_weights:
        _spread_to_neighbours(per_message, settings)
    for item in items.values():
        item.score = max((per_message[source] for source in item.sources), default=item.vote)


def dedupe(ordered: Sequence[Item]) -> list[Item]:
    """Drop an item when every stored message it stands for is already carried by an item before it; that
    item takes over the ranks it lacks (so a fact shown for its message still says the message matched)."""
    carrier: dict[str, Item] = {}
    kept: list[Item] = []
    for item in ordered:
        if item.sources and all(source in carrier for source in item.sources):
            keeper = carrier[item.sources[0]]
            for signal, rank in item.ranks.items():
                keeper.ranks.setdefault(signal, rank)
            continue
        kept.append(item)
        for source in item.sources:
            carrier.setdefault(source, item)
    return kept
