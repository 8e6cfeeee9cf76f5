"""A choice said with "go with" / "stick with": "I'll go with the MacBook Air", "I went with the Tuscany
trip", "I'm sticking with Postgres". Before, each was a generic ``go`` / ``stick`` fact; "I picked the
MacBook Air" was already ``decided``, and so is this now.

Only a thing chosen: not people one goes with ("I went with my sister to the concert", "I'm going with
Priya": after "go", one capitalised word alone is taken for a person, so "we went with Hetzner" stays as
it is said, unless it is chosen over another: "we went with Hetzner over AWS"), a pronoun ("I'll go with
that": ``rules_accepted`` reads it with the assistant's words) or an idiom ("go with the flow", "go with
my gut"). A habit ("I usually go with oat milk") is a taste, not a choice, and stays as it is said.
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, is_negated, phrase, prep_object
from ingestion.extractors.rules_lexicon import RELATION_NOUNS, words

#: Verbs whose "with" names what is chosen.
CHOOSING_WITH: Final = words("go stick")
#: What one goes "with" that is no choice.
NOT_CHOICES: Final = words("flow gut instinct heart")
#: People one goes with ("some workmates", "the kids").
COMPANY: Final = words(
    "friend family group people team guy girl crowd workmate coworker colleague classmate roommate flatmate "
    "neighbour neighbor kid child partner buddy mate"
)
#: Words that set the thing chosen against another.
_AGAINST: Final = words("over instead")
_PRONOUNS: Final = words("that it this them those these one him her me us you")
#: Words of a habit: what one "usually" goes with is a taste.
_HABIT: Final = words("usually always normally often generally typically")


def _bare_name(tok: Token) -> bool:
    """One capitalised word with nothing before it, which the model does not call a product or a company."""
    alone = not any(c.i < tok.i for c in tok.children)
    return tok.pos_ == "PROPN" and alone and tok.ent_type_ not in ("ORG", "PRODUCT")


def _elsewhere(child: Token) -> bool:
    """An object or a place of the verb besides "with" / "for" ("went *to the concert* with …")."""
    return child.dep_ in ("dobj", "prt") or (child.dep_ == "prep" and child.lower_ not in ("with", "for"))


def _pronoun(chosen: Token) -> bool:
    """ "that", "this one" (what the assistant proposed); not "the OXO one"."""
    said = any(c.i < chosen.i for c in chosen.children if c.dep_ != "det")
    return chosen.lower_ in _PRONOUNS and not said


def _set_against(head: Token, chosen: Token) -> bool:
    """ "went with Hetzner *over* AWS", "*instead of* AWS", "*rather than* AWS": chosen over another."""
    after = [t.lower_ for t in head.doc[chosen.i + 1 : chosen.i + 3]]
    return bool(after) and (after[0] in _AGAINST or after[:2] == ["rather", "than"])


def choice_facts(clause: Clause) -> list[Fact]:
    """``decided`` for a clause that says which thing its subject chose (module doc), or none."""
    head = clause.head
    if head.lemma_.lower() not in CHOOSING_WITH or is_negated(head):
        return []
    chosen = prep_object(head, ("with",))
    if chosen is None or _pronoun(chosen) or chosen.lemma_.lower() in NOT_CHOICES | COMPANY:
        return []
    against = _set_against(head, chosen)
    if any(c.lower_ in _HABIT or (_elsewhere(c) and not against) for c in head.children):
        return []  # "I usually go with oat milk"; "went on a trip with some workmates": company
    if chosen.ent_type_ == "PERSON" or chosen.lemma_.lower() in RELATION_NOUNS or chosen.pos_ == "PRON":
        return []
    if head.lemma_.lower() == "go" and _bare_name(chosen) and not against:
        return []  # "I'm going with Priya": whom one goes with, as far as the words tell
    return [Fact("decided", "decision", phrase(chosen, clause))]
