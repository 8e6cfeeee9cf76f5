"""A preference said against another thing: "User prefers coffee over tea now." ends "User prefers tea."
(reconcile's rules of conflict, ``ingestion.conflicts``). The thing set aside is named after "over", "to",
"instead of" or "rather than"; without one, "User prefers coffee." beside "User prefers tea." may both
hold. Only ``prefers`` is ended: one may still like what one prefers less.
"""

from __future__ import annotations

import re

from ingestion.claim_words import words
from ingestion.extractors.predicates import normalise_predicate
from memhq.models import Candidate, Memory

PREDICATE = "prefers"
#: "prefers X over Y" (X at least one word, so "prefers to work at night" sets nothing aside).
_OVER = re.compile(
    r"\bprefers?\s+\S.*?\s+(?:over|to|instead\s+of|rather\s+than)\s+(?P<other>[^.,;!?]+)", re.IGNORECASE
)
#: Words of when, not of what ("over tea *now*").
_WHEN = frozenset({"now", "nowadays", "these", "days", "anymore", "lately"})


def set_aside(candidate: Candidate) -> list[str]:
    """The words of what a ``prefers`` candidate's claim prefers its object to; none when it names none."""
    if normalise_predicate(candidate.predicate) != PREDICATE:
        return []
    found = _OVER.search(candidate.claim)
    return [w for w in words(found["other"]) if w not in _WHEN] if found else []


def preferred_over(candidate: Candidate, memory: Memory) -> bool:
    """The candidate prefers something to what the memory says is preferred."""
    other = set_aside(candidate)
    return bool(other) and memory.predicate == PREDICATE and words(memory.object_value) == other
