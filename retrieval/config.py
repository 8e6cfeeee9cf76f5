"""Every parameter of recall's ranking, in one typed home: name, default and why (``RetrievalConfig``).

These are properties of the method, chosen with ``memhq_eval`` on both development shapes (one person with
an assistant, two people chatting), not knobs a deployment turns: none is an environment variable. The
evaluation command overrides them per run (``--set name=value``) to tune, and tests pass their own.
What an operator does turn for recall (latency, not ranking) stays in config/settings.py:
``MEMHQ_RECALL_PREPARED``, ``MEMHQ_RECALL_SIZES_TTL_S``, ``MEMHQ_EMBED_INT8_QUERIES``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any


def _why(default: Any, why: str) -> Any:
    if isinstance(default, Mapping):  # each instance gets its own copy (a frozen dataclass holds a dict)
        return field(default_factory=lambda: dict(default), metadata={"why": why})
    return field(default=default, metadata={"why": why})


@dataclass(frozen=True)
class RetrievalConfig:
    weights: Mapping[str, float] = _why(
        {
            "vector": 0.9,
            "keyword": 0.6,
            "entity": 1.0,
            "message_vector": 0.9,
            "message_keyword": 1.4,
            "passage_vector": 0.45,
            "passage_keyword": 0.7,
            "unprocessed": 1.0,
            "summary": 0.3,
            "time": 1.5,
            "message_vector_e5": 0.45,
            "instruction": 1.5,
            "memory_phrase": 0.8,
            "message_phrase": 0.25,
        },
        "Each signal's vote weight. Raw messages and memory vectors carry most of the evidence; the time "
        "anchor is sharp when the query names a date; the entity anchor and summaries add context more than "
        "ranked evidence, so they vote less. message_vector 0.6 → 0.9 once replies were embedded with their "
        "question: locomo-dev frac@10 0.8155 → 0.8256 (0.75 and 1.05 measured less). Passages of long "
        "messages weigh half their messages' signals: chosen by 4-fold cross-validation on beam-dev "
        "(0.45/0.7 in 3 of 4 folds against 0.9/1.4; held-out frac@10 0.408); on locomo-dev, where few "
        "messages are long, the same figures either way. instruction (the standing instructions nearest "
        "the query, retrieval.signals.instructions): 4-fold cross-validation on beam-dev over 0.5-3 chose "
        "1.5 in 3 of 4 folds; held-out frac@10 0.491 → 0.502, instruction_following 0.427 → 0.729, "
        "preference_following 0.719 → 0.656, median context 1278 → 1199; locomo-dev unchanged (0.823). "
        "Later ingests' CV chose 1.0 (beam-dev frac@10 +0.006 [-0.012, +0.028], but instruction_following "
        "-0.083 [-0.188, +0.000]): kept at 1.5 for the instructions (docs/evaluation.md). keyword (full "
        "text over memories) 0.3 → 0.6: 4-fold cross-validation on beam-dev over 0.3-1.0 chose 0.6 in 3 of "
        "4 folds, held-out frac@10 0.501 → 0.522 (information_extraction 0.391 → 0.453: a fact said once, "
        "in the words the question repeats); paired in-sample +0.027 [+0.006, +0.055], any@10 +0.035; "
        "locomo-dev +0.001 [-0.002, +0.004]. message_vector_e5 (the second embedder, memhq.ai.e5): "
        "cross-validation over 0-0.9 chose 0.3 in 3 of 4 beam-dev folds (held out 0.586) and 0.6 in every "
        "locomo-dev fold (held out 0.833); 0.45 between them, paired against the signal off on the same "
        "stored data: beam-dev frac@10 +0.028 [+0.008, +0.051], locomo-dev +0.013 [+0.004, +0.023]. "
        "memory_phrase / message_phrase (the hits holding two words side by side as the question has them, "
        "retrieval.signals.phrases): cross-validation over 0-1.2 each chose 1.2 / 0.25 in every beam-dev "
        "fold (held out 0.599) and 0-0.8 / 0-0.5 on locomo-dev (held out 0.826); 0.8 / 0.25 between them, "
        "paired against the signals off on the same stored data: beam-dev frac@10 +0.027 [+0.003, +0.055], "
        "all@10 +0.035; locomo-dev -0.001 [-0.008, +0.005].",
    )
    score_share: float = _why(
        0.5,
        "A vote blends the hit's min-max normalised score (this share) and its RRF term (the rest): "
        "scores keep how far ahead the best hit is, ranks keep second-tier hits in play. locomo-dev "
        "frac@10: scores alone 0.795, RRF k=60 0.774, the blend 0.801-0.814.",
    )
    rrf_k: int = _why(20, "RRF's k (the paper's 60 flattens ranks): k 20 beat 10 and 30-40 on locomo-dev.")
    memory_share: float = _why(
        0.5,
        "How much a memory's vote counts toward the message(s) it was distilled from: memories mostly "
        "restate one message, so counting them fully double-counts it.",
    )
    sibling_exponent: float = _why(
        0.5,
        "A memory's score is its messages' fused score × (its own vote ÷ the best vote of a memory from the "
        "same messages) ^ this. 0: every fact of a message rides on the message's score, so the facts the "
        "query did not match fill slots beside the one it did (issue 13, item 1: each competes on its own).",
    )
    speaker_boost: float = _why(
        1.0,
        "Score ×(1 + this) for items spoken by or about a person the query names (a role is never a name). "
        "The vector signals embed the query without those names (retrieval.dense_query), so this is what "
        "ties them back to the person: locomo-dev multi-hop all@10 0.324 → 0.345 from 0.6 to 1.0. "
        "On user↔assistant conversations nobody is named and it does nothing.",
    )
    neighbour_weights: Mapping[int, float] = _why(
        {1: 0.4, 2: 0.4, -1: 0.2, -2: 0.2},
        "Share of a top message's score given to the turn at each offset: the next turn often answers, the "
        "speaker's own next turn goes on with the story.",
    )
    assistant_weight: float = _why(
        0.1,
        "Votes for what the assistant said (a message or passage of role assistant) count this much: what "
        "the user said is usually the memory, what the assistant said the context around it. An assistant "
        "turn still comes in as the neighbour of the user turn it answers (neighbour shares are not "
        "scaled). beam-dev, 4-fold cross-validation over 0.05-1.0 (0.1 chosen in 3 of 4 folds): held-out "
        "frac@10 0.411 → 0.492, any@10 0.538 → 0.664, median context 1894 → 1248 tokens; questions whose "
        "evidence is mostly the assistant's gain too (0.076 → 0.103: long replies no longer crowd the "
        "context). No effect on locomo-dev (no assistant turns).",
    )
    filler_weight: float = _why(
        0.0,
        "Votes and score of a filler turn (ingestion.filler: chatter, an assistant's empty question back) "
        "count this much; 0 leaves them out of recall. Filler is embedded and indexed like any turn, so "
        "this is measured on one ingest.",
    )
    neighbour_seeds: int = _why(20, "How many of the best messages lend a share to their neighbours.")
    embed_without_people: bool = _why(
        True,
        "The vector signals embed the query without the people it names (retrieval.dense_query): "
        "'What activities does Ana do?' embeds as its topic, not as 'Ana'. locomo-dev frac@10 0.800 → "
        "0.810, multi-hop all@10 0.289 → 0.324. Only known person entities are removed.",
    )
    min_relative_score: float = _why(
        0.0,
        "Items scoring below this share of the best item's score are left out of the context: past the "
        "first items, weak matches cost tokens and rarely carry the answer.",
    )
    instruction_slot: int = _why(
        2,
        "The standing instruction nearest the query is moved up to this position (0-based) of the ranked "
        "items when it ranks below it; negative: off. Found by one signal, an instruction trails the facts "
        "several signals agree on, and the assistant cannot follow what it does not see. beam-dev, 4-fold "
        "cross-validation over slots -1/0/2/4/6/9 and cosines 0.25-0.4: on in every fold, held-out frac@10 "
        "0.530 → 0.537, any@10 0.706 → 0.713 (instruction_following 0.625 → 0.688); every slot 0-9 scores "
        "the same (the top 10 either way), 2 keeps it within the token budget. Same rows of two earlier "
        "ingests: +0.003, +0.004. locomo-dev has no instructions: unchanged.",
    )
    instruction_slot_cosine: float = _why(
        0.3,
        "... when its cosine with the query is at least this (an instruction on another topic stays where "
        "fusion put it).",
    )
    importance_weight: float = _why(0.2, "Vote ×(1 + this × importance): a small nudge between near-ties.")
    reinforce_weight: float = _why(
        0.1, "Vote ×(1 + this × reinforcement, saturating at reinforce_saturation)."
    )
    reinforce_saturation: int = _why(5, "Reinforcements past this many add nothing more.")
    recency_weight: float = _why(
        0.15,
        "Vote ×(1 + this × recency), recency halving every recency_half_life_days before as_of. Small: on "
        "locomo-dev most evidence is months older than the question; 0.15 moves frac@10 < 0.005, 0.3 costs "
        "0.01.",
    )
    recency_half_life_days: float = _why(180.0, "Recency halves every this many days before as_of.")

    @classmethod
    def names(cls) -> list[str]:
        return [item.name for item in fields(cls)]

    @classmethod
    def why(cls, name: str) -> str:
        return str(next(item.metadata["why"] for item in fields(cls) if item.name == name))


DEFAULT = RetrievalConfig()


def current() -> RetrievalConfig:
    """The configuration recall uses."""
    return DEFAULT
