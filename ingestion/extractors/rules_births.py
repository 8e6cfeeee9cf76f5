"""Where and when one was born: "I was born in Leeds" → ``is_from`` Leeds; "I was born on 2 June 1990" →
``birthday`` 2 June 1990; "I was born in Porto on 3 May 1985" → both. Before, each was a generic ``bear``
("User was born in Leeds"), which no question about where the user is from or when their birthday is
found by its predicate, and which a later "I'm from Leeds" did not say again; "I was born and raised in
Ohio" was "User raised in Ohio".

Only a place by name, by the model or by the list of towns ("Cork", which the model calls a person; not
"born in a small village", "born in the eighties") and a date with its day (a birthday is a day: "born in
1988" or "born in March" stays the clause it was). A negated birth ("I wasn't born here") is none.
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.places import is_place_name
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, is_negated, name_of, text_of

#: Named-entity labels of a place one can be born in.
PLACE_LABELS: Final = frozenset({"GPE", "LOC"})
#: Ordinal suffixes of a day of the month ("3rd", "21st").
_DAY_SUFFIXES: Final = ("st", "nd", "rd", "th")
_MAX_DAY: Final = 31
#: The claim of a birthday: the day as said ("the 4th of July" is no 4 July of the year before).
BORN_ON: Final = "{s} was born on {o}."
#: "I was born and raised in Ohio": the parser gives the place to "raised" ("User raised in Ohio").
BORN_AND_RAISED: Final = "{s} was born and raised in {o}."


def _objects(head: Token) -> list[Token]:
    """The objects of the "in" / "on" phrases of the verb ("born in Leeds on 3 May")."""
    return [
        obj
        for prep in head.children
        if prep.dep_ == "prep" and prep.lower_ in ("in", "on")
        for obj in prep.children
        if obj.dep_ == "pobj"
    ]


def _a_day(obj: Token) -> bool:
    """A date with its day of the month: "2 June 1990", "June 2nd", "the 3rd of May"."""
    for tok in obj.subtree:
        low = tok.lower_
        number = low[:-2] if low.endswith(_DAY_SUFFIXES) else low
        if tok.ent_type_ == "DATE" and number.isdigit() and 1 <= int(number) <= _MAX_DAY:
            return True
    return False


def birth_facts(clause: Clause) -> list[Fact]:
    """``is_from`` and ``birthday`` for a clause that says where or on which day its subject was born."""
    head = clause.head
    raised = head.lower_ == "raised" and head.dep_ == "conj" and head.head.lower_ == "born"
    if not (head.lower_ == "born" or raised) or is_negated(head):
        return []
    facts = []
    for obj in _objects(head):
        if obj.ent_type_ == "DATE" and _a_day(obj) and not raised:  # the day as said: no year guessed
            facts.append(Fact("birthday", "fact", object_text=text_of(obj.subtree), template=BORN_ON))
        elif obj.pos_ == "PROPN" and (obj.ent_type_ in PLACE_LABELS or is_place_name(text_of(name_of(obj)))):
            facts.append(Fact("is_from", "fact", name_of(obj), template=BORN_AND_RAISED if raised else None))
    return facts
