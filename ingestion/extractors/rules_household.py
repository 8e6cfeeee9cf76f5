"""Whom one lives with: "I live with my parents", "I live alone", "I live on my own now", "My mother lives
with us now", "I moved in with my boyfriend". Before, "I live alone" and "My mother lives with us" stored
nothing (no place, and a pronoun is no content word) and "I live with my parents" was a generic ``live``.
"I live with my wife in Leeds" (the parser hangs the town under the wife) says where too: ``lives_in``.

One single-valued predicate, ``lives_with``, whose object is who ("User's parents", "alone"), so a new
household supersedes the last. Only people: not a past household ("I lived with roommates in college"), a
place ("I live in Leeds": ``lives_in``) or a figure of speech ("I live with anxiety").
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.base import Kind
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import (
    Fact,
    first_child,
    is_negated,
    is_past,
    name_of,
    particle,
    phrase,
    prep_object,
    speakers_own,
)
from ingestion.extractors.rules_lexicon import RELATION_NOUNS, words

PREDICATE: Final = "lives_with"
ALONE: Final = "alone"
#: "on my own", "by myself": alone.
_OWN: Final = frozenset({"own", "myself", "ourselves"})
#: People one lives with, besides one's relations.
HOUSEMATES: Final = words("roommate flatmate housemate friend family partner kid child")
_PRONOUNS: Final = words("us me them him her")


def _someone(who: Token) -> bool:
    lemma = who.lemma_.lower()
    named = who.pos_ == "PROPN" or who.ent_type_ == "PERSON" or speakers_own(who)  # "my grandparents"
    return named or who.lower_ in _PRONOUNS or lemma in RELATION_NOUNS or lemma in HOUSEMATES


def _alone(head: Token) -> bool:
    if any(c.dep_ == "advmod" and c.lower_ == ALONE for c in head.children):
        return True
    found = prep_object(head, ("on", "by"))
    return found is not None and found.lower_ in _OWN


def household_facts(clause: Clause) -> list[Fact]:
    """``lives_with`` for a clause that says whom its subject lives with now, or moved in with."""
    head = clause.head
    lemma = head.lemma_.lower()
    moved_in = lemma == "move" and (  # "moved in with", "moved back in with" ("in" read as an adverb)
        particle(head) == "in" or any(c.dep_ == "advmod" and c.lower_ == "in" for c in head.children)
    )
    if not (lemma == "live" or moved_in) or is_negated(head):
        return []
    if lemma == "live" and (is_past(head) or head.tag_ == "VBN"):
        return []  # "I lived with roommates in college"
    kind: Kind = "event" if moved_in else "fact"
    if lemma == "live" and _alone(head):
        return [Fact(PREDICATE, kind, object_text=ALONE, template="{s} lives alone.")]
    place = prep_object(head, ("in",))
    who = prep_object(head, ("with",)) or (prep_object(place, ("with",)) if place is not None else None)
    if who is None or not _someone(who) or first_child(head, "dobj") is not None:
        return []  # "I live in Leeds with my wife": "with" hangs under the place
    where = prep_object(who, ("in",)) if lemma == "live" else None  # "with my wife in Leeds"
    if where is None or not (where.pos_ == "PROPN" or where.ent_type_ in ("GPE", "LOC")):
        return [Fact(PREDICATE, kind, phrase(who, clause))]
    said = {t.i for t in where.head.subtree}
    return [
        Fact(PREDICATE, kind, tuple(t for t in phrase(who, clause) if t.i not in said)),
        Fact("lives_in", kind, name_of(where)),
    ]
