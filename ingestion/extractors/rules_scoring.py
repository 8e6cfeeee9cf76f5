"""Confidence and importance of a rules candidate: named constants, one place.

* Importance says how much a memory matters for future conversations. It starts from the kind
  (relationships and decisions above passing facts) and is raised for the predicates that shape almost every
  later answer (allergies, family, home, work, diet). Generic verb-lemma facts are scaled down.
* Confidence says how sure the extractor is that the claim is true and correctly attributed. A vocabulary
  pattern is surer than the generic fallback; a hedge ("maybe", "I think"), a subjectless casual sentence
  or a claim about someone else lowers it.
"""

from __future__ import annotations

from typing import Final

from ingestion.extractors.base import Kind
from ingestion.extractors.predicates import FAVORITE_PREFIX, normalise_predicate

KIND_IMPORTANCE: Final[dict[Kind, float]] = {
    "relationship": 0.8,
    "decision": 0.7,
    "preference": 0.6,
    "event": 0.6,
    "fact": 0.55,
}
PREDICATE_IMPORTANCE: Final[dict[str, float]] = {
    "allergic_to": 0.95,
    "name": 0.9,
    "spouse": 0.9,
    "has_child": 0.85,
    "partner": 0.85,
    "lives_in": 0.85,
    "works_at": 0.85,
    "diet": 0.85,
    "job_title": 0.8,
    "works_on": 0.8,
    "relationship_status": 0.8,
    "age": 0.8,
    "birthday": 0.8,
    "has_pet": 0.75,
    "is_from": 0.75,
    "sibling": 0.75,
    "parent": 0.75,
    "studies": 0.7,
    "studies_at": 0.7,
    "plans_to": 0.7,
    "decided": 0.75,
}
FAVORITE_IMPORTANCE: Final = 0.65
GENERIC_IMPORTANCE_FACTOR: Final = 0.75

SPECIFIC_CONFIDENCE: Final = 0.85
GENERIC_CONFIDENCE: Final = 0.65
HEDGE_FACTOR: Final = 0.6
IMPLICIT_SUBJECT_FACTOR: Final = 0.85
OTHER_SUBJECT_FACTOR: Final = 0.9
PRECISION: Final = 3


def importance(kind: Kind, predicate: str, *, specific: bool) -> float:
    name = normalise_predicate(predicate)
    if name.startswith(FAVORITE_PREFIX):
        base = FAVORITE_IMPORTANCE
    else:
        base = PREDICATE_IMPORTANCE.get(name, KIND_IMPORTANCE[kind])
    return round(base if specific else base * GENERIC_IMPORTANCE_FACTOR, PRECISION)


def confidence(*, specific: bool, hedged: bool, implicit_subject: bool, about_other: bool) -> float:
    value = SPECIFIC_CONFIDENCE if specific else GENERIC_CONFIDENCE
    if hedged:
        value *= HEDGE_FACTOR
    if implicit_subject:
        value *= IMPLICIT_SUBJECT_FACTOR
    if about_other:
        value *= OTHER_SUBJECT_FACTOR
    return round(value, PRECISION)
