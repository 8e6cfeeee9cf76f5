"""The grade someone is in at school: "My son is in 3rd grade", "He started 4th grade this week", "I'm in the
11th grade", "My daughter is a third grader", "moved up to 5th grade". Before, "User's son is in 3rd grade"
(``is``) and "User's son started 4th grade" (``start``) were both live.

One single-valued predicate, ``grade``, whose object is the grade ("4th grade"), so the next grade
supersedes the last. A plan ("is going into 5th grade in the fall") is a plan, as any future change is.
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, first_child, is_negated, prep_object
from ingestion.extractors.rules_lexicon import words

PREDICATE: Final = "grade"
#: Verbs of entering a grade ("started 4th grade", "moved up to 5th grade", "is going into 2nd grade").
ENTER_VERBS: Final = words("start begin enter move go")
_ORDINALS: Final = words(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth kindergarten"
)


def _ordinal(noun: Token) -> Token | None:
    """ "4th" / "fourth" of "4th grade" / "a fourth grader"."""
    mod = next((c for c in noun.lefts if c.dep_ in ("amod", "nummod", "compound")), None)
    if mod is None:
        return None
    low = mod.lower_
    return mod if low in _ORDINALS or (low[:-2].isdigit() and low[-2:] in ("st", "nd", "rd", "th")) else None


def _grade_noun(clause: Clause) -> Token | None:
    head = clause.head
    lemma = head.lemma_.lower()
    if lemma == "be":
        found = prep_object(head, ("in",)) or first_child(head, "attr")  # "is in 3rd grade", "a 3rd grader"
    elif lemma in ENTER_VERBS:
        found = first_child(head, "dobj") or prep_object(head, ("into", "to"))
    else:
        return None
    return found if found is not None and found.lower_ in ("grade", "grader") else None


def grade_facts(clause: Clause) -> list[Fact]:
    """``grade`` for a clause that says which grade its subject is in or has started (module doc)."""
    noun = _grade_noun(clause)
    if noun is None or is_negated(clause.head):
        return []
    ordinal = _ordinal(noun)
    if ordinal is None:
        return []
    return [Fact(PREDICATE, "fact", object_text=f"{ordinal.text} grade")]
