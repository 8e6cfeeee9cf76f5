"""Extractive episode summary and key learnings (no model).

The summary is what makes a conversation findable as a whole ("what did we talk about last week?"), so it
always opens with a topic sentence naming the participants and the conversation's main terms — the most
frequent named entities and noun phrases of what the people (not the assistant) said — and then adds the
best few claims: highest importance × confidence plus a bonus for touching the topic terms, in
conversation order. Key learnings are the claim texts of the most important candidates.

A conversation of pure chatter gets a one-line "small talk" summary; one with nothing said by a person gets
an empty summary.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

from spacy.tokens import Doc

from ingestion.extractors.base import CandidateOut
from ingestion.extractors.rules_filters import CHATTER_WORDS
from ingestion.extractors.rules_grammar import core, text_of
from ingestion.extractors.rules_lexicon import words
from ingestion.extractors.rules_mentions import LABEL_TYPES, clean_name, looks_named
from ingestion.extractors.rules_trim import is_vocative

TOPIC_TERMS: Final = 6
SUMMARY_CLAIMS: Final = 3
KEY_LEARNINGS: Final = 5
ENTITY_WEIGHT: Final = 2
CENTRALITY_WEIGHT: Final = 0.3
#: Nouns too vague to name a topic.
VAGUE_NOUNS: Final = words(
    """
    thing things stuff lot lots time times day days way bit kind sort type people guy guys one ones week
    weeks month months year years today yesterday tomorrow moment something anything everything nothing
    question questions help idea ideas fun chat news update
    """
)
NUMERIC_LABELS: Final = frozenset({"DATE", "TIME", "MONEY", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT"})
_NON_TOPIC_POS: Final = frozenset({"PRON", "DET", "NUM", "SYM", "PUNCT"})


def topic_terms(docs: Sequence[Doc], skip: set[str]) -> list[str]:
    """The most frequent entities and noun phrases across ``docs`` (surface forms, first-seen casing)."""
    counts: Counter[str] = Counter()
    surface: dict[str, str] = {}
    order: dict[str, int] = {}

    def add(text: str, weight: int) -> None:
        name = clean_name(text)
        key = name.lower()
        if not name or key in VAGUE_NOUNS or key in CHATTER_WORDS or any(w in skip for w in key.split()):
            return
        counts[key] += weight
        surface.setdefault(key, name)
        order.setdefault(key, len(order))

    for doc in docs:
        covered: set[int] = set()
        ent_of = {i: ent for ent in doc.ents if ent.label_ in LABEL_TYPES for i in range(ent.start, ent.end)}
        for chunk in doc.noun_chunks:
            root = chunk.root
            if root.pos_ not in ("NOUN", "PROPN") or root.is_stop:
                continue
            ent = ent_of.get(root.i)
            if ent is not None:  # the entity's own extent: "St Mary's Hospital", "Crumb & Co"
                covered.update(range(ent.start, ent.end))
                if looks_named(ent) and not is_vocative(ent.root):
                    add(ent.text, ENTITY_WEIGHT)
                continue
            words = [
                t
                for t in core(root)
                if t.pos_ not in _NON_TOPIC_POS and not t.like_num and t.ent_type_ not in NUMERIC_LABELS
            ]
            covered.update(t.i for t in words)
            if words and not is_vocative(root):
                named = any(t.ent_type_ in LABEL_TYPES for t in words)
                add(text_of(words), ENTITY_WEIGHT if named else 1)
        for ent in doc.ents:
            fresh = not covered & set(range(ent.start, ent.end))
            if ent.label_ in LABEL_TYPES and fresh and looks_named(ent) and not is_vocative(ent.root):
                add(ent.text, ENTITY_WEIGHT)
    ranked = sorted(counts, key=lambda k: (-counts[k], order[k]))
    # a term that is part of a longer kept term adds nothing ("Corolla Hybrid" inside "Toyota Corolla Hybrid")
    kept: list[str] = []
    for key in ranked:
        if not any(key in other for other in kept):
            kept.append(key)
        if len(kept) == TOPIC_TERMS:
            break
    return [surface[k] for k in kept]


def _join(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _where(c: CandidateOut) -> tuple[int, int]:
    return c.source_message_indexes[0], c.span_start


def _score(c: CandidateOut, terms: Sequence[str]) -> float:
    text = c.claim.lower()
    hits = sum(1 for t in terms if t.lower() in text)
    return c.importance * c.confidence + CENTRALITY_WEIGHT * hits / max(len(terms), 1)


def summarise(
    candidates: Sequence[CandidateOut],
    docs: Sequence[Doc],
    participants: Sequence[str],
    *,
    with_assistant: bool,
    only_questions: bool,
) -> tuple[str, list[str]]:
    """(summary, key_learnings) for one episode."""
    if not docs:
        return "", []
    who = _join(participants) if participants else "The user"
    if not participants and with_assistant:
        who += " and the assistant"
    terms = topic_terms(docs, {p.lower() for p in participants})
    if terms:
        verb = "asked about" if only_questions and not candidates else "talked about"
        opening = f"{who} {verb} {_join(terms)}."
    else:
        opening = f"{who} exchanged small talk." if not candidates else ""
    ranked = sorted(candidates, key=lambda c: -_score(c, terms))
    chosen: list[CandidateOut] = []
    for c in ranked:  # one claim per clause: the others of a clause are templated restatements
        if all(_where(c) != _where(other) for other in chosen):
            chosen.append(c)
        if len(chosen) == SUMMARY_CLAIMS:
            break
    chosen.sort(key=lambda c: (c.source_message_indexes[0], c.span_start))
    summary = " ".join([opening, *(c.claim for c in chosen)]).strip()
    by_importance = sorted(candidates, key=lambda c: -(c.importance * c.confidence))
    learnings: list[str] = []
    for c in by_importance:
        if c.claim not in learnings:
            learnings.append(c.claim)
        if len(learnings) == KEY_LEARNINGS:
            break
    return summary, learnings
