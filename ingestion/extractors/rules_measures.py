"""The speaker's body weight: "I weigh 180 pounds", "I'm down to 165 pounds now", "I'm 80 kg". Before,
the two wordings were two predicates ("weigh", "is"), so the new weight never replaced the old one. One
single-valued predicate, ``weight``, whose object is the number and its unit. "I weigh my options" has no
weight; "I lost 10 pounds" is a change by an amount, not a weight, and stays as it is said.
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, first_child, is_negated, is_past, prep_object

PREDICATE: Final = "weight"
_WAYS: Final = frozenset({"down", "up"})
WEIGHT_UNITS: Final = frozenset({"pounds", "pound", "lbs", "lb", "kg", "kgs", "kilos", "kilograms", "stone"})


def weight_facts(clause: Clause) -> list[Fact]:
    """The speaker's weight in a present, positive clause (module doc), or none."""
    head = clause.head
    if is_negated(head) or is_past(head):
        return []
    lemma = head.lemma_.lower()
    if lemma == "weigh":
        unit = first_child(head, "dobj", "npadvmod", "attr")
    elif lemma == "be":  # "I'm 80 kg", "I'm up to 72 kg"; "I'm down to 165 pounds" ("to" under "down")
        way = next((c for c in head.children if c.lower_ in _WAYS and c.dep_ in ("advmod", "prt")), None)
        unit = first_child(head, "attr") or (prep_object(way, ("to",)) if way is not None else None)
        if unit is None and way is not None:  # "I'm down to 78 kg now": "to" read as the number's
            unit = first_child(head, "npadvmod")
    else:
        return []
    amount = _amount(unit)
    return [Fact(PREDICATE, "fact", amount)] if amount else []


def _amount(unit: Token | None) -> tuple[Token, ...]:
    """ "180 pounds" → (180, pounds); () when the word is no unit of weight or has no number."""
    if unit is None or unit.lower_ not in WEIGHT_UNITS:
        return ()
    number = next((c for c in unit.children if c.dep_ == "nummod" and c.like_num), None)
    return (number, unit) if number is not None else ()
