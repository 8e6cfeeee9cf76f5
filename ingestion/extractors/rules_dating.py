"""Dating someone: "I'm seeing someone", "I've been seeing a guy named Marco", "I started dating someone
new", "I'm seeing someone now, his name is Marco", "I'm dating Marco".

Each gives ``relationship_status`` "dating" (single-valued, so it replaces "single"), and ``partner`` with the
name where the sentence tells it (as the object, "named …", or "his / her name is …" after it).

"See" is dating only in the progressive (or after "start") and only with a person left unnamed in the words
of dating ("someone", "a guy", "a woman"): "I'm seeing a therapist", "I'm seeing my doctor on Friday", "I'm
seeing Marco tomorrow" and "I saw someone at the gym" are appointments or meetings, not a relationship.
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import (
    Fact,
    first_child,
    is_negated,
    is_progressive,
    name_of,
    names_attached,
)

DATING: Final = "dating"
#: The partner's claim: the clause's own words may not hold the name ("I'm seeing someone, his name is …").
PARTNER_TEMPLATE: Final = "{s} is dating {o}."
#: Whom one is "seeing" without a name, in the words of dating.
SOMEONE: Final = frozenset({"someone", "somebody", "guy", "girl", "man", "woman", "boy", "lady"})
#: The pronouns a partner's name is told with after the clause ("*his* name is Marco").
PARTNER_PRONOUNS: Final = frozenset({"his", "her", "their"})
_START: Final = frozenset({"start", "begin"})


def _dating_verb(head: Token) -> Token | None:
    """The "seeing" / "dating" of the clause, said as lasting: progressive, or after "started"."""
    if head.lemma_.lower() in _START:
        verb = first_child(head, "xcomp")
        return verb if verb is not None and verb.tag_ == "VBG" else None
    return head if is_progressive(head) else None


def _told_name(person: Token) -> tuple[Token, ...] | None:
    """ "…, *his name is Marco*": a name told in the same sentence after the person."""
    for tok in person.sent:
        if tok.i <= person.i or tok.pos_ != "PROPN" or tok.dep_ != "attr" or tok.head.lemma_ != "be":
            continue
        said = first_child(tok.head, "nsubj")
        if said is None or said.lemma_ != "name":
            continue
        if any(c.dep_ == "poss" and c.lower_ in PARTNER_PRONOUNS for c in said.children):
            return name_of(tok)
    return None


def dating_facts(clause: Clause) -> list[Fact]:
    """``relationship_status`` dating (and ``partner``) for a clause of the speaker dating someone."""
    verb = _dating_verb(clause.head)
    if verb is None or verb.lemma_.lower() not in ("see", "date") or is_negated(clause.head):
        return []
    person = first_child(verb, "dobj")
    if person is None:
        return []
    unnamed = person.lemma_.lower() in SOMEONE
    if not unnamed and not (verb.lemma_.lower() == "date" and person.pos_ == "PROPN"):
        return []  # "I'm seeing a therapist", "I'm seeing Marco tomorrow"
    status = Fact("relationship_status", "relationship", object_text=DATING)
    names = names_attached(person) if unnamed else [name_of(person)]
    name = names[0] if names else _told_name(person)
    if not name:
        return [status]
    return [Fact("partner", "relationship", name, template=PARTNER_TEMPLATE), status]
