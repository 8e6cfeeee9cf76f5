"""A diet one is on, and eating again what a diet leaves out. "I'm on the keto diet", "I'm on a low-carb diet
now", "I'm on keto" are ``diet`` "keto" / "low-carb" (before: a generic ``is``, which "I'm vegan now" did
not replace). Eating again: "I started eating fish again", "I'm eating meat again", "I went back to eating
dairy", "I'm back to eating meat". Before, "User is a vegetarian." stayed live beside "User started eating
fish again."

One ``diet`` fact whose object says what is eaten again ("eats fish"), so it supersedes the diet before it
(``diet`` is single-valued). Only a return ("again", "back to"): "I started eating more fish" or "I eat fish"
changes no diet.
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, first_child, is_negated, prep_object
from ingestion.extractors.rules_lexicon import words

#: What a diet leaves out.
ANIMAL_FOODS: Final = words("meat fish seafood chicken beef pork dairy eggs cheese")
_START: Final = words("start begin")


def _eating(head: Token) -> Token | None:
    """The "eating" of "I started eating", "I went back to eating", "I'm eating", "I eat"."""
    if head.lemma_.lower() == "eat":
        return head
    inner = first_child(head, "xcomp")
    if head.lemma_.lower() in _START and inner is not None and inner.lemma_.lower() == "eat":
        return inner
    back = prep_object(head, ("to",)) if head.lemma_.lower() == "go" else None
    if head.lemma_.lower() == "be":  # "I'm back to eating meat"
        adverb = next((c for c in head.children if c.dep_ == "advmod" and c.lower_ == "back"), None)
        to = next((c for c in adverb.children if c.lower_ == "to"), None) if adverb is not None else None
        back = first_child(to, "pcomp", "pobj") if to is not None else None
    return back if back is not None and back.lemma_.lower() == "eat" else None


#: Diets said by their own name ("I'm on keto").
NAMED_DIETS: Final = words("keto paleo whole30 carnivore")


def diet_on_facts(clause: Clause, *, positive: bool = False) -> list[Fact]:
    """``diet`` for "I'm on the keto diet", "on a low-carb diet", "on keto" (``positive``: read a negated
    clause as if it were not, for its ending: "I'm not on keto anymore")."""
    head = clause.head
    if head.lemma_.lower() != "be" or head.tag_ == "VBD" or (is_negated(head) and not positive):
        return []
    thing = prep_object(head, ("on",))
    if thing is None:
        return []
    if thing.lower_ in NAMED_DIETS:
        return [Fact("diet", "fact", object_text=thing.lower_)]
    if thing.lemma_.lower() != "diet":
        return []
    mods = [m for m in thing.lefts if m.dep_ in ("compound", "amod", "nmod")]
    kind = [t for m in mods for t in m.subtree if t.dep_ not in ("det", "poss")]
    said = thing.doc[min(t.i for t in kind) : thing.i].text.lower() if kind else ""  # "low-carb"
    return [Fact("diet", "fact", object_text=said)] if said else []


def diet_return_facts(clause: Clause) -> list[Fact]:
    """``diet`` "eats <food>" for the speaker eating again what a diet leaves out (module doc)."""
    head = clause.head
    eating = _eating(head)
    if eating is None or is_negated(head) or is_negated(eating):
        return []
    food = first_child(eating, "dobj")
    if food is None or food.lower_ not in ANIMAL_FOODS or any(c.dep_ == "amod" for c in food.children):
        return []  # "I started eating more fish": not a return
    words_said = {t.lower_ for t in clause.tokens}
    returned = "again" in words_said or (head.lemma_.lower() in ("go", "be") and "back" in words_said)
    return [Fact("diet", "event", object_text=f"eats {food.lower_}")] if returned else []
