"""A plan called off: "I had to cancel the Lisbon trip", "we called off the party", "I cancelled my gym
membership", "my flight got cancelled", "the airline cancelled my flight".

Each is one ``cancelled`` event whose object is the thing called off, in the clause's own words ("User had to
cancel the Lisbon trip."). Reconcile ends the live memory of the plan it names
(:func:`ingestion.cancellations.cancels`): "User is flying to Lisbon on 3 May." ends with the trip.

Only a cancellation that happened: "I'm going to cancel my subscription" and "I didn't cancel" change nothing.
Someone else's cancellation counts when the thing is the speaker's ("the airline cancelled *my* flight", "*my*
flight got cancelled"), not "they cancelled the concert".
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, first_child, is_negated, particle, phrase, speakers_own
from ingestion.extractors.rules_replacements import ENDING_KIND, unowned

CANCELLED: Final = "cancelled"
CANCEL_VERBS: Final = frozenset({"cancel", "scrap"})
CANCEL_PHRASALS: Final = frozenset({("call", "off")})
#: Verbs a past cancellation may hang under ("I had to cancel", "we decided to cancel").
CARRIERS: Final = frozenset({"have", "decide", "need"})
PAST_TAGS: Final = frozenset({"VBD", "VBN"})


def _cancels(verb: Token) -> bool:
    lemma = verb.lemma_.lower()
    return lemma in CANCEL_VERBS or (lemma, particle(verb)) in CANCEL_PHRASALS


def _verb(clause: Clause) -> Token | None:
    """The verb of cancelling, said as done: the clause's head, or the verb a past "had to" / "decided to"
    carries."""
    head = clause.head
    if _cancels(head):
        return head if head.tag_ in PAST_TAGS else None
    inner = first_child(head, "xcomp")
    if head.lemma_.lower() in CARRIERS and head.tag_ in PAST_TAGS and inner is not None and _cancels(inner):
        return inner
    return None


def cancellation(clause: Clause) -> Fact | None:
    """The ``cancelled`` fact of a clause that calls off a plan of the speaker's (module doc), or None."""
    verb = _verb(clause)
    if verb is None or is_negated(verb) or is_negated(clause.head):
        return None
    passive = first_child(verb, "nsubjpass")  # "my flight got cancelled": the speaker's only
    thing = passive if passive is not None else first_child(verb, "dobj")
    by_speaker = passive is None and clause.subject_kind in ("speaker", "implicit")
    if thing is None or thing.pos_ not in ("NOUN", "PROPN") or not (by_speaker or speakers_own(thing)):
        return None
    return Fact(CANCELLED, ENDING_KIND, unowned(phrase(thing, clause)))
