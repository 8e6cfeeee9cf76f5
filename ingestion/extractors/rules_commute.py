"""How the speaker gets to work or school: "I take the bus to work", "I bike to the office now", "I commute by
train", "I ride my bike to work these days", "I get to work by bus". Before, "User takes the bus to work" and
"User bikes to work now" were two facts of two verbs, both live.

One single-valued predicate, ``commutes_by``, whose object is the way ("bus", "bike", "car", "on foot"), so a
new way supersedes the old one. Only the usual way: a one-day trip ("I drove to work today"), a past one ("I
took the train to work"), a negated one, or a trip elsewhere ("I take the train to Boston") is none.
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, is_negated, is_past
from ingestion.extractors.rules_lexicon import words
from ingestion.extractors.rules_routines import ONE_DAY

PREDICATE: Final = "commutes_by"
#: Verbs that are the way itself ("I bike to work").
WAY_VERBS: Final = {"bike": "bike", "cycle": "bike", "walk": "on foot", "drive": "car", "carpool": "carpool"}
#: Verbs that take the way as a word ("I take the bus", "I commute by train", "I ride my bike").
WAY_TAKING_VERBS: Final = words("take ride commute get go travel")
#: Ways to get somewhere, and the word the object says for each.
WAYS: Final = {
    **{word: word for word in ("bus", "train", "subway", "metro", "tram", "ferry", "car", "bike", "scooter")},
    "bicycle": "bike",
    "tube": "subway",
    "motorbike": "motorcycle",
    "motorcycle": "motorcycle",
    "foot": "on foot",
}
#: Where a commute goes.
DESTINATIONS: Final = words(
    "work office school campus job class university uni lab studio clinic hospital site shop store factory"
)


def _destined(clause: Clause) -> bool:
    """ "to work", "to the office", "to school" in the clause."""
    toks = clause.tokens
    for at, tok in enumerate(toks):
        if tok.lower_ != "to":
            continue
        after = [t for t in toks[at + 1 : at + 4] if t.pos_ not in ("DET", "PRON") and t.tag_ != "PRP$"]
        if after and after[0].lower_ in DESTINATIONS:
            return True
    return False


def _way(head: Token, clause: Clause) -> str | None:
    lemma = head.lemma_.lower()
    if lemma in WAY_VERBS:
        return WAY_VERBS[lemma]
    if lemma not in WAY_TAKING_VERBS:
        return None
    ways = [t for t in clause.tokens if t.lower_ in WAYS and t.pos_ == "NOUN" and t.i > head.i]
    return WAYS[ways[0].lower_] if ways else None


def commute_facts(clause: Clause, *, positive: bool = False) -> list[Fact]:
    """``commutes_by`` for the speaker's usual way to work or school (module doc); ``positive``: read a
    negated clause as if it were not, for its ending ("I don't drive to work anymore")."""
    head = clause.head
    if head.pos_ != "VERB" or (is_negated(head) and not positive) or is_past(head) or head.tag_ == "VBN":
        return []
    if any(t.lower_ in ONE_DAY for t in clause.tokens):
        return []  # "I'm driving to work today": one day, not the way
    commuting = head.lemma_.lower() == "commute"
    if not commuting and not _destined(clause):
        return []
    way = _way(head, clause)
    return [Fact(PREDICATE, "fact", object_text=way)] if way is not None else []
