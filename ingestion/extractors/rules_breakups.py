"""A break-up: "We broke up", "Ana and I split up last month", "I broke up with my girlfriend". Before, the
first two stored nothing (no object), and the third was ``left`` "User's girlfriend", which ends no partner
memory that holds her name; "User is in a relationship" stayed live after each.

Each ends the partner, whoever it is (``no_longer_partner`` with no object; and ``left`` the one named, as
before, so "lives with Lena" ends with Lena), and makes the status "single"
(``relationship_status`` holds one value, so it replaces "in a relationship" or "dating"), of whom the
clause's subject names ("my sister broke up with her boyfriend" is the sister's). Said as done: not "we
didn't break up", "we might break up"; with a person: not "I broke up the fight", "the band broke up".
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.predicates import LEFT, NO_LONGER_PREFIX
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, is_negated, name_of, particle, phrase, prep_object
from ingestion.extractors.rules_lexicon import RELATION_NOUNS
from ingestion.extractors.rules_replacements import ENDING_KIND

#: Verbs that end a couple with "up" ("broke up", "split up").
BREAKING_VERBS: Final = frozenset({"break", "split"})
SINGLE_TEMPLATE: Final = "{s} is single."


def _a_partner(tok: Token) -> bool:
    """ "my girlfriend", "Marco": a partner or a person named."""
    return (
        RELATION_NOUNS.get(tok.lemma_.lower()) == "partner"
        or tok.ent_type_ == "PERSON"
        or tok.pos_ == "PROPN"
    )


def breakup_facts(clause: Clause) -> list[Fact]:
    """The end of the speaker's partner and the status "single" for a break-up (module doc), or none."""
    head = clause.head
    if head.lemma_.lower() not in BREAKING_VERBS or particle(head) != "up" or is_negated(head):
        return []
    if head.tag_ not in ("VBD", "VBN") or any(c.tag_ == "MD" for c in head.children):
        return []  # "we might break up", "we're breaking up": not done
    if any(c.dep_ == "dobj" for c in head.children):
        return []  # "I broke up the fight"
    other = prep_object(head, ("with",))
    subject = clause.subject
    people = [subject, *subject.conjuncts] if subject is not None else []  # "Noor and I", "I and Noor"
    together = any(p.lower_ == "we" for p in people) or (
        any(p.lower_ == "i" for p in people) and any(_a_partner(p) for p in people)
    )
    named_before = any(c.dep_ == "npadvmod" and _a_partner(c) for c in head.children)  # "Ana and I"
    if not (together or named_before or (other is not None and _a_partner(other))):
        return []
    partner = other or next(
        (p for p in [*people, *head.children] if p.pos_ == "PROPN" and _a_partner(p)), None
    )
    said = () if partner is None else name_of(partner) if partner.pos_ == "PROPN" else phrase(partner, clause)
    left = [Fact(LEFT, ENDING_KIND, said)] if said else []
    return [
        Fact(NO_LONGER_PREFIX + "partner", ENDING_KIND, object_text=""),  # first: the clause is its claim
        *left,  # "left Lena": her other memories end too ("lives with Lena")
        Fact("relationship_status", "relationship", object_text="single", template=SINGLE_TEMPLATE),
    ]
