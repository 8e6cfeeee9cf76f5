"""A daily routine's time: "I wake up at 6am every day", "These days I get up at 7:30", "I go to bed
around 11". Before, nothing was stored: the generic fallback counts a time as no content. Each is one
single-valued predicate (``wakes_up``, ``bedtime``) whose object is the time, so a new time supersedes the
old one whatever verb said it ("wake up" then "get up").
"""

from __future__ import annotations

import re
from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, is_negated, is_past, particle

#: (verb lemma, particle) → predicate; "go" needs "to bed" instead of a particle.
ROUTINE_VERBS: Final = {("wake", "up"): "wakes_up", ("get", "up"): "wakes_up", ("go", ""): "bedtime"}
TIME_PREPS: Final = ("at", "around", "by", "before", "after")
#: Words of one day's time, not the routine's.
ONE_DAY: Final = frozenset({"tonight", "today", "tomorrow", "yesterday"})
#: Words of a clock time after its number ("6 am", "7:30 pm", "11 o'clock").
CLOCK_WORDS: Final = frozenset({"am", "pm", "a.m.", "p.m.", "o'clock", "noon", "midnight", ":"})


_CLOCK_NUMBER: Final = re.compile(r"\d{1,2}(?::\d\d)?(?:am|pm)?")


def _clock(clause: Clause) -> tuple[Token, ...]:
    """The clock time after the clause's first "at / around / by …" ("at 6 am" → "6", "am")."""
    for k, prep in enumerate(clause.tokens):
        if prep.lower_ not in TIME_PREPS:
            continue
        out = []
        for tok in clause.tokens[k + 1 : k + 4]:
            if not (_CLOCK_NUMBER.fullmatch(tok.lower_) or tok.like_num or tok.lower_ in CLOCK_WORDS):
                break
            out.append(tok)
        if out and out[0].lower_ not in CLOCK_WORDS - {"noon", "midnight"}:
            return tuple(out)
    return ()


def routine_facts(clause: Clause) -> list[Fact]:
    """The routine fact of a present, positive clause of the speaker's (module doc), or none."""
    head = clause.head
    if is_negated(head) or is_past(head):
        return []
    predicate = ROUTINE_VERBS.get((head.lemma_.lower(), particle(head)))
    if predicate is None:
        return []
    if predicate == "bedtime" and not any(t.lower_ == "bed" and t.head.lower_ == "to" for t in clause.tokens):
        return []
    if any(t.lower_ in ONE_DAY for t in clause.tokens):
        return []  # "I'm going to bed at 2am tonight", "up at 5 tomorrow": one day, not the routine
    clock = _clock(clause)
    return [Fact(predicate, "fact", clock)] if clock else []
