"""Reconcile's rule for a name corrected: "Sorry, I misspoke: my sister's name is Klara" after "My sister's
name is Clara" (the rules extractor marks the claim: ``rules_relations.CORRECTED``). A relation holds many
names ("my two sisters"), so a new name ends none; a corrected one ends the name of the same relation
spelled most like it (``MIN_LIKENESS``: Clara / Klara 0.8, Leo / Teo 0.67; another sister, Maja, 0.44).
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Final

from ingestion.claim_words import words
from ingestion.extractors.predicates import normalise_predicate
from ingestion.extractors.rules_relations import CORRECTED
from memhq.models import Candidate, Memory

#: How alike two names must be spelled for one to correct the other (``SequenceMatcher.ratio``).
MIN_LIKENESS: Final = 0.6


def corrects(candidate: Candidate) -> bool:
    return CORRECTED.strip() in candidate.claim


def _relation(claim: str) -> list[str]:
    """The words before "is": "User's sister" of "User's sister is Klara (corrected).\""""
    said = words(claim)
    return said[: said.index("is")] if "is" in said else said


def corrected(candidate: Candidate, memory: Memory) -> bool:
    """The memory is the name the candidate corrects: the same predicate and relation, spelled alike."""
    if normalise_predicate(candidate.predicate) != normalise_predicate(memory.predicate):
        return False
    if _relation(candidate.claim) != _relation(memory.text):
        return False
    new, old = candidate.object_value.casefold(), memory.object_value.casefold()
    return new != old and SequenceMatcher(None, new, old).ratio() >= MIN_LIKENESS
