"""Clauses about the speaker that put one thing in another's place, or end a thing by name
(``rules_patterns_change`` reads the other changes; its module doc has the whole list):

* "I replaced / swapped / dropped / ditched X for (with) Y", Y named → ``left`` X and ``uses`` Y ("traded in
  my Civic for a RAV4" too; a trade "with" someone is whom one traded with: "I swapped shifts with Ana");
* "I got rid of X" → ``left`` X; "I've gone off X" → ``no_longer_likes`` X (which ends ``prefers`` X too);
* a value said to hold now "instead of / rather than Y" ends Y for the same predicate ("I'm learning
  Japanese now instead of Spanish"); without "now" it is a choice, and Y may never have held.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from spacy.tokens import Token

from ingestion.extractors.predicates import LEFT, NO_LONGER_PREFIX
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import (
    Fact,
    first_child,
    is_negated,
    name_of,
    particle,
    phrase,
    prep_object,
)

#: Verbs that put one named thing in another's place: "replaced Jira with Linear", "dropped Jira for Linear".
REPLACE_VERBS: Final = frozenset({"replace", "swap", "trade", "ditch", "drop", "exchange"})
REPLACEMENT_PREPS: Final = ("for", "with")
#: Verbs of a trade: what one gets is "for"; "with" is whom one trades with ("I traded shifts with Ana").
TRADE_VERBS: Final = frozenset({"swap", "trade", "exchange"})
#: Words that name the value a clause's own replaces: "instead of Spanish", "rather than Spanish".
INSTEAD_WORDS: Final = {"instead": "of", "rather": "than"}
NOW_WORDS: Final = frozenset({"now", "currently", "nowadays", "lately"})
ENDING_KIND: Final = "event"
#: Words that set the thing one leaves apart from its successor, not part of its name ("my old Kindle").
FORMER_WORDS: Final = frozenset({"old", "previous", "former", "current"})


def unowned(tokens: tuple[Token, ...]) -> tuple[Token, ...]:
    """ "my old Honda Civic" → "Honda Civic": the thing, as a memory of it names it."""
    return tuple(
        t
        for t in tokens
        if not (t.dep_ == "poss" and t.lower_ in ("my", "our"))
        and not (t.dep_ == "amod" and t.lower_ in FORMER_WORDS)
    )


def name_or_phrase(tok: Token, clause: Clause) -> tuple[Token, ...]:
    """A name with its version ("Python 3.12", "Pixel 8"), or the phrase of a common noun."""
    if tok.pos_ != "PROPN":
        return phrase(tok, clause)
    version = tuple(c for c in tok.children if c.dep_ == "nummod" and c.i > tok.i)
    return (*name_of(tok), *version)


def _replace_facts(clause: Clause) -> list[Fact] | None:
    """ "I replaced Jira with Linear", "we dropped Jira for Linear": the old thing left, the new one used."""
    head = clause.head
    lemma = head.lemma_.lower()
    trade = lemma in TRADE_VERBS
    old = first_child(head, "dobj")
    if old is None and trade:
        old = prep_object(head, ("in",))  # "I traded in my Civic for a RAV4", "in" read as a preposition
    allowed = ("", "in") if trade else ("",)  # "traded in"
    if lemma not in REPLACE_VERBS or old is None or is_negated(head) or particle(head) not in allowed:
        return None
    preps = ("for",) if trade else REPLACEMENT_PREPS
    new = prep_object(head, preps) or prep_object(old, preps)
    if new is None or new.pos_ != "PROPN":
        return None
    ended = Fact(LEFT, ENDING_KIND, unowned(phrase(old, clause)))
    return [ended, Fact("uses", "event", name_or_phrase(new, clause))]  # "a Model 3": with its number


def _instead(clause: Clause) -> tuple[Token, Token] | None:
    """The "instead" / "rather" of the clause and the value it names ("instead of Spanish" → Spanish)."""
    for k, word in enumerate(clause.tokens[:-2]):
        link = clause.tokens[k + 1]
        if word.lower_ not in INSTEAD_WORDS or link.lower_ != INSTEAD_WORDS[word.lower_]:
            continue
        other = first_child(link, "pobj") or next(
            (t for t in clause.tokens[k + 2 :] if t.pos_ in ("NOUN", "PROPN")), None
        )
        return (word, other) if other is not None else None
    return None


def instead_endings(clause: Clause, facts: list[Fact]) -> list[Fact]:
    """The clause's facts without their "instead of Y" part, each with the ending of Y (module doc)."""
    found = _instead(clause)
    if found is None:
        return facts
    word, other = found
    kept = [replace(f, object_tokens=tuple(t for t in f.object_tokens if t.i < word.i)) for f in facts]
    if not any(t.lower_ in NOW_WORDS for t in clause.tokens):
        return kept  # "I use Postgres rather than MySQL" is a choice; MySQL may never have been used
    endings = [
        Fact(NO_LONGER_PREFIX + f.predicate, ENDING_KIND, name_or_phrase(other, clause))
        for f in kept
        if f.predicate not in (LEFT, "plans_to") and not f.predicate.startswith(NO_LONGER_PREFIX)
    ]
    return kept + endings


def _rid_facts(clause: Clause) -> list[Fact] | None:
    """ "I got rid of my standing desk" → ``left`` standing desk."""
    head = clause.head  # "rid" is the head, after "got" as a passive's auxiliary, or "got"'s complement
    rid = head if head.lower_ == "rid" else next((c for c in head.children if c.lower_ == "rid"), None)
    if rid is None or is_negated(head):
        return None
    obj = prep_object(rid, ("of",)) or prep_object(head, ("of",))
    return [Fact(LEFT, ENDING_KIND, unowned(phrase(obj, clause)))] if obj is not None else None


def _gone_off(clause: Clause) -> list[Fact] | None:
    """ "I've gone off tea" → ``no_longer_likes`` tea (ends liking and preferring it). Only the perfect:
    "went off" is also an alarm, or leaving ("I went off to college")."""
    head = clause.head
    if head.lower_ != "gone" or is_negated(head):
        return None
    off = next((c for c in head.children if c.lower_ == "off" and c.dep_ in ("prt", "prep")), None)
    if off is None:
        return None
    thing = first_child(head, "dobj") or first_child(off, "pobj")
    return [Fact(NO_LONGER_PREFIX + "likes", ENDING_KIND, unowned(phrase(thing, clause)))] if thing else None


def replacement_facts(clause: Clause) -> list[Fact] | None:
    """The facts of a replacement or a named ending (module doc); None when the clause states neither."""
    return _replace_facts(clause) or _rid_facts(clause) or _gone_off(clause)
