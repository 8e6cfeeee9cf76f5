"""The speaker's time zone: "I'm on Eastern time now", "I'm in the Central time zone", "I'm on CET", "My
time zone is UTC+2". Before, "User is on Eastern time now" and "User's timezone is Pacific" were two facts
of two predicates, both live; an assistant that schedules needs the current one.

One single-valued predicate, ``timezone``, whose object is the zone as said ("Eastern", "UTC+2"), so a move
to another zone supersedes the old one. A zone is a capitalised name before "time" / "time zone" ("island
time" is none) or an abbreviation of :data:`ABBREVIATIONS`, with or without an offset ("GMT+1").
"""

from __future__ import annotations

import re
from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, is_negated, prep_object
from ingestion.extractors.rules_lexicon import words

PREDICATE: Final = "timezone"
ABBREVIATIONS: Final = words(
    "UTC GMT CET CEST WET WEST EET EEST BST IST EST EDT CST CDT MST MDT PST PDT AKST HST JST KST AEST AEDT"
)
_ABBREVIATION = re.compile(r"^(?P<zone>[A-Z]{2,5})(?:[+-]\d{1,2}(?::?\d{2})?)?$")
#: Nouns of a zone said by name ("Eastern *time*", "the Central *time zone*").
ZONE_NOUNS: Final = words("time zone timezone")


def zone_word(token: Token) -> bool:
    """An abbreviation of a zone, with or without an offset ("CET", "UTC+2")."""
    found = _ABBREVIATION.match(token.text)
    return found is not None and found["zone"] in ABBREVIATIONS


def _named_zone(noun: Token) -> tuple[Token, ...] | None:
    """ "Eastern" of "Eastern time" / "the Central time zone"; the token itself for "CET"."""
    if zone_word(noun):
        return (noun,)
    if noun.lower_ not in ZONE_NOUNS:
        return None
    name = [c for c in noun.lefts if c.dep_ in ("amod", "compound") and c.lower_ not in ZONE_NOUNS]
    inner = next((c for c in noun.lefts if c.dep_ == "compound" and c.lower_ == "time"), None)
    if inner is not None:  # "the Central time zone": "Central" hangs under "time"
        name += [c for c in inner.lefts if c.dep_ in ("amod", "compound")]
    if len(name) != 1 or not (name[0].text[:1].isupper() or zone_word(name[0])):
        return None
    return (name[0],)


def time_zone_facts(clause: Clause) -> list[Fact]:
    """ "I'm on Eastern time", "I'm in the Central time zone", "I'm on CET" (module doc)."""
    head = clause.head
    if head.lemma_.lower() != "be" or is_negated(head):
        return []
    noun = prep_object(head, ("on", "in"))
    zone = _named_zone(noun) if noun is not None else None
    return [Fact(PREDICATE, "fact", zone)] if zone is not None else []


def own_zone(subject: Token, value: Token | None) -> Fact | None:
    """ "My time zone is UTC+2", "my timezone is Pacific": the zone named after "is"."""
    named = subject.lower_ == "timezone" or (
        subject.lower_ == "zone" and any(c.lower_ == "time" for c in subject.lefts)
    )
    if not named or value is None or value.pos_ not in ("PROPN", "ADJ", "NOUN"):
        return None
    return Fact(PREDICATE, "fact", (value,))
