"""A habit said with its verb alone: "I smoke", "I don't drink", "I don't drive", "I can't swim", "I don't
cook much". Before, each stored nothing: a verb without an object has no content word besides itself, so
the generic fallback dropped it. An assistant told "I don't drink" should not suggest a wine pairing.

The verb's own predicate (``smoke``, or ``not_smoke`` negated), the gerund as its object ("smoking", so
"I quit smoking" later ends "I smoke"), the clause as its claim ("User doesn't drink."). "I don't smoke
anymore" is an ending (``no_longer_smoke``). Only ``HABIT_VERBS`` and the activities of
``rules_activities`` negated ("I don't run": the positive is a hobby there), in the present, alone: not "I
don't drink coffee" (an object: the verb table), "I didn't drive today" (one day), "I drive to work" (the
way to work), "I'd never smoke" (a wish). "I started smoking again" takes the habit up (``smoke``; the
activities' ``hobby``: "I started running").
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_activities import ACTIVITY_VERBS, gerund
from ingestion.extractors.rules_activities import PREDICATE as HOBBY
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, is_negated, is_past
from ingestion.extractors.rules_lexicon import words

#: Verbs whose bare present is a habit or an ability worth keeping ("I smoke", "I don't drive").
HABIT_VERBS: Final = words("smoke drink drive vape gamble")
#: Verbs of taking a habit up (again): "I started smoking again", "I've started running".
STARTING_VERBS: Final = words("start begin resume")
#: What makes it no bare habit: an object, a complement, a destination.
_NOT_ALONE: Final = frozenset({"dobj", "attr", "xcomp", "ccomp", "prt", "dative", "oprd", "prep", "npadvmod"})
#: Modals that keep a habit ("I can't drive", "I cannot swim"); others make a wish or a guess.
_ABILITY: Final = frozenset({"ca", "can", "could"})
#: How much, which the parse may read as an object ("I don't cook *much*").
_DEGREE: Final = words("much often anymore")
#: Words of one occasion: "I didn't drive today".
_OCCASION: Final = words("today tonight yesterday now")


def habit_facts(clause: Clause, *, positive: bool = False) -> list[Fact]:
    """The habit of a present clause whose verb stands alone (module doc), or none; ``positive``: read a
    negated one as if it were not (for "I don't smoke anymore")."""
    head = clause.head
    lemma = head.lemma_.lower()
    negated = is_negated(head)
    if lemma in STARTING_VERBS and not positive:
        return _started(head)
    if not (lemma in HABIT_VERBS or (lemma in ACTIVITY_VERBS and negated and not positive)):
        return []
    if is_past(head) or head.tag_ not in ("VBP", "VBZ", "VB"):
        return []
    if any(
        (c.dep_ in _NOT_ALONE and c.lower_ not in _DEGREE) or c.lower_ in _OCCASION for c in head.children
    ):
        return []
    modals = [c for c in head.children if c.dep_ == "aux" and c.tag_ == "MD"]
    if any(m.lower_ not in _ABILITY for m in modals) or (modals and not negated):
        return []  # "I'd never smoke", "I can drive": a wish, a boast
    predicate = f"not_{lemma}" if negated and not positive else lemma
    return [Fact(predicate, "fact", object_text=gerund(lemma))]


def _started(head: Token) -> list[Fact]:
    """ "I started smoking (again)": the habit (``smoke`` "smoking"); "I started running": the activity
    (``hobby`` "running"). Not "I started smoking meat" (an object), "I didn't start drinking"."""
    done = next((c for c in head.children if c.dep_ == "xcomp" and c.tag_ == "VBG"), None)
    if done is None or is_negated(head) or any(c.dep_ in _NOT_ALONE for c in done.children):
        return []
    lemma = done.lemma_.lower()
    if lemma in HABIT_VERBS:
        return [Fact(lemma, "event", object_text=gerund(lemma))]
    return [Fact(HOBBY, "event", object_text=gerund(lemma))] if lemma in ACTIVITY_VERBS else []
