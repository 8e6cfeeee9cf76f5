"""A home said by what one rents, shares or moved into: "I'm renting an apartment in Brooklyn", "We rent a
flat in Leeds", "My partner and I share a flat in Glasgow" → ``lives_in`` Brooklyn / Leeds / Glasgow; "We
bought a house in New Jersey and moved in last week" → ``lives_in`` New Jersey (an event). Before, the first
was a generic ``rent`` and the second an ``owns`` with nothing about the home, so a later move left the old
town live and "where do I live?" had no ``lives_in``.

Only a home noun ("apartment", "house", "flat") in a place by name, rented now (not "I rented a car in
Lisbon", "I rented a cabin in Tahoe last summer", "we're renting a flat in Rome in July") or bought and then
moved into ("I bought a house in Spain" alone may be a holiday home or an investment: nothing is said of
living there).
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import (
    Fact,
    a_name,
    first_child,
    is_negated,
    is_past,
    name_of,
    prep_object,
)
from ingestion.extractors.rules_lexicon import HOME_NOUNS, words

#: Verbs of renting (or sharing) a home now.
RENT_VERBS: Final = words("rent lease sublet share")
#: Verbs of getting a home, which a "moved in" after them makes the home lived in.
GOT_VERBS: Final = words("buy rent find get purchase")
#: The claim of a move into a home just got: the clause itself is only "moved in".
MOVED_IN: Final = "{s} moved into a new home in {o}."


def _place_of(home: Token | None, verb: Token) -> Token | None:
    """The named place of a home noun ("an apartment in *Brooklyn*"; "in" may hang under the verb)."""
    if home is None or home.lemma_.lower() not in HOME_NOUNS:
        return None
    place = prep_object(home, ("in",)) or prep_object(verb, ("in",))
    return place if place is not None and a_name(place) else None


def _dated(clause: Clause) -> bool:
    """A stay with its dates ("renting a flat in Rome in July", "for two weeks"): a trip, not a home; "since
    2020" is a home held."""
    dates = [t for t in clause.tokens if t.ent_type_ in ("DATE", "TIME")]
    return any(t.head.lower_ != "since" and t.lower_ != "since" for t in dates)


def home_facts(clause: Clause) -> list[Fact]:
    """``lives_in`` for a clause that rents a home in a named place now, or moved into one just got."""
    head = clause.head
    lemma = head.lemma_.lower()
    if is_negated(head):
        return []
    if lemma in RENT_VERBS and not is_past(head) and not _dated(clause):
        place = _place_of(first_child(head, "dobj"), head)
        return [Fact("lives_in", "fact", name_of(place))] if place is not None else []
    moved_in = lemma == "move" and any(c.lower_ == "in" and not list(c.children) for c in head.children)
    got = head.head if head.dep_ == "conj" else None
    if moved_in and got is not None and got.lemma_.lower() in GOT_VERBS:
        place = _place_of(first_child(got, "dobj"), got)  # "bought a house in X and moved in"
        return [Fact("lives_in", "event", name_of(place), template=MOVED_IN)] if place is not None else []
    return []
