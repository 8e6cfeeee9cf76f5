"""Fusion: from each signal's ranked, scored hits to one score per item. Pure: no I/O, no randomness; each
step returns new items and leaves its input as it was. Its parameters: ``retrieval.config.RetrievalConfig``.

1. **Votes.** Each signal votes for its hits with a blend of two things: the hit's score min-max normalised
   over the signal's hits (a cosine and a BM25 score become comparable; the best hit 1, the worst 0), and
   its rank, as in Reciprocal Rank Fusion, scaled so rank 1 is 1 too: ``(rrf_k + 1) / (rrf_k + rank)``.
   ``score_share`` of the first plus the rest of the second, times the signal's weight; an item's vote is
   the sum over the signals that found it, times ``assistant_weight`` for an assistant's turn and
   ``filler_weight`` for a filler turn (at 0 recall leaves filler turns out altogether).
   ``score_share = 0`` is weighted RRF. Measured on locomo-dev
   (``memhq_eval --signals`` scores the variants side by side), frac@10 / multi-hop all@10: scores alone
   0.795 / 0.275, RRF k = 60 0.774 / 0.310, RRF k = 10 0.789 / 0.310, the even blend with k = 10
   0.801 / 0.289, best or equal on 4 of the 5 conversations. Scores keep how far ahead the best hit is;
   ranks keep a signal's second-tier hits (often the other sessions multi-hop questions need) in play.
   Since the vector signals embed the query without the people it names (``retrieval.dense_query``), the
   blend with k = 20 measured 0.814 / 0.359 against k = 10's 0.812 / 0.345 (better or equal on every
   conversation; k 30-40 the same multi-hop, lower frac@10).
2. **Agreement across items.** A memory and the message it was distilled from are the same evidence: votes
   are added up per stored message (``Item.sources``), a memory's vote counting ``memory_share`` (split
   over its sources), so a message found by the message signals *and* through its memories ranks above
   one found once. A message and its passages are one text, not agreeing evidence: they count once, with
   the best of their votes (summed, a long message's first passage, which is also its vector, was counted
   twice: beam-dev frac@10 0.335 summed, 0.401 with the best, same rows).
3. **Neighbours.** A message at ``offset`` turns from one of the ``neighbour_seeds`` best messages gets
   ``neighbour_weights[offset]`` × that message's score, whichever signal found it (the ``neighbour``
   signal brings in the turns next to the best hits that no other signal found).
4. An item scores the best of its messages (an item without stored messages keeps its vote). Of several
   memories from the same messages, each scales that by (its vote ÷ the best of theirs) ^
   ``sibling_exponent``: the fact the query matched leads, the others of the same breath follow.
5. **Speaker.** An item spoken by (message) or about (memory) someone the query names scores
   ×(1 + ``speaker_boost``): "what did Nate say after Greta's setback" → Nate's reply, which only the
   neighbour step found, still outranks Greta's turns. (Boosting the votes before step 3 instead measured
   frac@10 0.789 against 0.794 on locomo-dev.)
6. :func:`raise_instruction`: the standing instruction nearest the query, when it is near enough, is
   moved up to ``instruction_slot`` (an instruction is found by one signal, so its vote trails facts that
   several signals agree on, yet the assistant must see it to follow it).
7. :func:`dedupe` drops only repeats: a memory saying what a better one says, a message or passage
   whose messages better items carry (their ranks go to the item kept).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from retrieval.config import RetrievalConfig
from retrieval.items import ROLES, Item
from retrieval.signals import instructions

_WORD = re.compile(r"[a-z0-9]+")

NEIGHBOUR = "neighbour"


@dataclass(frozen=True)
class Hit:
    signal: str
    key: str  # Item.key
    score: float | None
    rank: int = 1  # 1-based, within the signal


def normalise(scores: Sequence[float | None]) -> list[float]:
    """Min-max over one signal's hits: best 1, worst 0; all 1 when they tie (or when scores are missing)."""
    known = [score for score in scores if score is not None]
    if not known:
        return [1.0] * len(scores)
    low, high = min(known), max(known)
    span = high - low
    return [1.0 if score is None or span <= 0 else (score - low) / span for score in scores]


def _votes(hits: Sequence[Hit], config: RetrievalConfig) -> dict[str, float]:
    by_signal: dict[str, list[Hit]] = defaultdict(list)
    for hit in hits:
        if hit.signal != NEIGHBOUR:
            by_signal[hit.signal].append(hit)
    votes: dict[str, float] = defaultdict(float)
    for signal, signal_hits in by_signal.items():
        weight = config.weights.get(signal, 1.0)
        share, k = config.score_share, config.rrf_k
        scores = normalise([hit.score for hit in signal_hits])
        for hit, score in zip(signal_hits, scores, strict=True):
            votes[hit.key] += weight * (share * score + (1 - share) * (k + 1) / (k + hit.rank))
    return votes


def named(item: Item, query_words: set[str]) -> bool:
    """Is the item's speaker (message) or subject (memory) a person the query names? A role is not: "what
    does the user like" names nobody (it would otherwise double every item of the user's own turns)."""
    words = _WORD.findall(item.anchor.lower())
    return bool(words) and " ".join(words) not in ROLES and all(word in query_words for word in words)


def _spread_to_neighbours(per_message: dict[str, float], config: RetrievalConfig) -> None:
    """Give the stored messages next to the best ones a share of their score (adjacency is read off the
    sources, "<episode>:<index>", so a neighbour counts whichever signal brought it in)."""
    seeds = sorted(per_message, key=lambda source: (-per_message[source], source))[: config.neighbour_seeds]
    gains: dict[str, float] = {}
    for seed in seeds:
        episode, _, index = seed.rpartition(":")
        if not index.isdigit():
            continue
        for offset, weight in config.neighbour_weights.items():
            source = f"{episode}:{int(index) + offset}"
            if source in per_message:
                gains[source] = max(gains.get(source, 0.0), weight * per_message[seed])
    for source, gain in gains.items():
        per_message[source] += gain


def vote(items: Mapping[str, Item], hits: Sequence[Hit], config: RetrievalConfig) -> dict[str, Item]:
    """Step 1: every item with its own ``vote``."""
    votes = _votes(hits, config)
    return {
        key: item.copy_with(vote=votes.get(key, 0.0) * _turn_weight(item, config))
        for key, item in items.items()
    }


def _turn_weight(item: Item, config: RetrievalConfig) -> float:
    weight = config.assistant_weight if item.role == "assistant" else 1.0
    return weight * config.filler_weight if item.filler else weight


def spread(items: Mapping[str, Item], query: str, config: RetrievalConfig) -> dict[str, Item]:
    """Steps 2-5: every item with its ``score`` from the votes of all items standing for the same messages
    (a memory's scaled by :func:`_sibling_share`), nudged when it is spoken by or about someone the query
    names."""
    per_message: dict[str, float] = defaultdict(float)
    said: dict[str, float] = defaultdict(float)  # the best vote for the message or one of its passages
    best_memory: dict[str, float] = defaultdict(float)  # the best vote of a memory distilled from it
    for item in items.values():
        if item.type == "memory":
            share = config.memory_share / len(item.sources) if item.sources else 1.0
            for source in item.sources:
                per_message[source] += item.vote * share
                best_memory[source] = max(best_memory[source], item.vote)
        else:
            for source in item.sources:
                said[source] = max(said[source], item.vote)
    for source, best in said.items():
        per_message[source] += best
    if config.neighbour_weights:
        _spread_to_neighbours(per_message, config)
    query_words = set(_WORD.findall(query.lower()))
    scored: dict[str, Item] = {}
    for key, item in items.items():
        score = max((per_message[source] for source in item.sources), default=item.vote)
        if item.type == "memory" and item.sources and config.sibling_exponent:
            score *= _sibling_share(item, best_memory, config.sibling_exponent)
        if config.speaker_boost and named(item, query_words):
            score *= 1 + config.speaker_boost
        scored[key] = item.copy_with(score=score)
    return scored


def _sibling_share(item: Item, best_memory: Mapping[str, float], exponent: float) -> float:
    """(The memory's vote ÷ the best vote of a memory from the same messages) ^ ``exponent``: of the facts
    one message gave, the one the query matched leads and the others follow it by how well they match."""
    best = max(best_memory[source] for source in item.sources)
    return float((item.vote / best) ** exponent) if best > 0 else 1.0


def raise_instruction(ordered: Sequence[Item], hits: Sequence[Hit], config: RetrievalConfig) -> list[Item]:
    """``ordered`` with the instruction signal's first hit moved up to position ``instruction_slot``
    (0-based) when it ranks below it and its cosine with the query is at least
    ``instruction_slot_cosine``; the order of the rest is kept. A negative slot turns this off."""
    items = list(ordered)
    if config.instruction_slot < 0:
        return items
    top = next((hit for hit in hits if hit.signal == instructions.NAME and hit.rank == 1), None)
    if top is None or top.score is None or top.score < config.instruction_slot_cosine:
        return items
    position = next((i for i, item in enumerate(items) if item.key == top.key), None)
    if position is None or position <= config.instruction_slot:
        return items
    items.insert(config.instruction_slot, items.pop(position))
    return items


def _same_text(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


#: :func:`dedupe`'s mark for an item read past its limit (not kept, but it still carries its messages).
PAST_LIMIT = -1


def dedupe(ordered: Sequence[Item], limit: int | None = None) -> list[Item]:
    """The items that do not repeat a better one, in order, at most ``limit`` of them:

    - a memory whose text (words, case-insensitively) a better memory already says is dropped;
    - a message or passage whose stored messages are all carried by better items (the memory distilled
      from it, another passage of the same message) is dropped.

    Memories from one message each stay: "vegetarian", "hates spicy food" and "loves Italian restaurants"
    said in one breath are three facts. The item kept takes over the ranks a dropped one had (so a fact
    shown for its message still says the message matched). Past ``limit``, items are still read for the
    ranks they hand to the kept ones, but none is copied: the first ``limit`` are those of the whole list."""
    carrier: dict[str, int] = {}  # stored message → position in kept (PAST_LIMIT: an item not kept)
    said: dict[str, int] = {}  # a memory's words → position in kept (PAST_LIMIT: an item not kept)
    kept: list[Item] = []
    for item in ordered:
        keeper: int | None = None
        words = _same_text(item.text) if item.type == "memory" else ""
        if item.type == "memory":
            keeper = said.get(words)
        elif item.sources and all(source in carrier for source in item.sources):
            keeper = carrier[item.sources[0]]
        if keeper is not None:
            if keeper != PAST_LIMIT:
                kept[keeper] = kept[keeper].copy_with(ranks={**item.ranks, **kept[keeper].ranks})
            continue
        position = PAST_LIMIT
        if limit is None or len(kept) < limit:
            kept.append(item.copy_with(ranks=dict(item.ranks)))
            position = len(kept) - 1
        if item.type == "memory":
            said.setdefault(words, position)
        for source in item.sources:
            carrier.setdefault(source, position)
    return kept
