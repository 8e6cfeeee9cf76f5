"""A plan called off: "I had to cancel the Lisbon trip", "we called off the party", "I cancelled my gym
membership", "my flight got cancelled", "the airline cancelled my flight".

Each is one ``cancelled`` event whose object is the thing called off, in the clause's own words ("User had to
cancel the Lisbon trip."). Reconcile ends the live memory of the plan it names
(:func:`ingestion.cancellations.cancels`): "User is flying to Lisbon on 3 May." ends with the trip.

Only a cancellation that happened: "I'm going to cancel my subscription" and "I didn't cancel" change nothing.
Someone else's cancellation counts when the thing is the speaker's ("the airline cancelled *my* flight", "*my*
flight got cancelled"), not "they cancelled the concert"; and so does a plan said with "the" that was called
off ("The Lisbon trip was cancelled", "the wedding got called off"): in one's own news, the trip is one's own.
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Span, Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, first_child, is_negated, particle, phrase, speakers_own
from ingestion.extractors.rules_lexicon import words
from ingestion.extractors.rules_replacements import ENDING_KIND, unowned

CANCELLED: Final = "cancelled"
CANCEL_VERBS: Final = frozenset({"cancel", "scrap"})
CANCEL_PHRASALS: Final = frozenset({("call", "off")})
#: Verbs a past cancellation may hang under ("I had to cancel", "we decided to cancel").
CARRIERS: Final = frozenset({"have", "decide", "need"})
PAST_TAGS: Final = frozenset({"VBD", "VBN"})
#: Words that say what kind of plan was called off, not which one: "the Lisbon *trip*" is found by "Lisbon"
#: in "User is flying to Lisbon on 3 May." (``ingestion.cancellations``), "my Netflix *subscription*" by
#: "Netflix" in "User uses Netflix.".
PLAN_NOUNS: Final = words(
    """
    trip flight visit plan plans booking reservation holiday vacation appointment meeting session order
    party class lesson ticket tickets call dinner date membership subscription account
    """
)
#: Events one plans to go to, called off by whoever holds them ("the wedding was called off").
HELD_EVENTS: Final = words(
    "wedding concert show game conference event match surgery course workshop festival"
)


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


def _the_plan(thing: Token) -> bool:
    """ "*The* Lisbon trip", "the wedding": a plan or an event said with "the"."""
    the = any(c.dep_ == "det" and c.lower_ == "the" for c in thing.children)
    return the and thing.lemma_.lower() in PLAN_NOUNS | HELD_EVENTS


def calls_off_the_plan(sent: Span) -> bool:
    """ "The Lisbon trip was cancelled": a sentence worth reading without a word of the speaker's."""
    for verb in sent:
        thing = first_child(verb, "nsubjpass") if _cancels(verb) and verb.tag_ == "VBN" else None
        if thing is not None and _the_plan(thing) and not is_negated(verb):
            return True
    return False


def cancellation(clause: Clause) -> Fact | None:
    """The ``cancelled`` fact of a clause that calls off a plan of the speaker's (module doc), or None."""
    verb = _verb(clause)
    if verb is None or is_negated(verb) or is_negated(clause.head):
        return None
    passive = first_child(verb, "nsubjpass")  # "my flight got cancelled": the speaker's only
    thing = passive if passive is not None else first_child(verb, "dobj")
    by_speaker = passive is None and clause.subject_kind in ("speaker", "implicit")
    if thing is None or thing.pos_ not in ("NOUN", "PROPN"):
        return None
    if not (by_speaker or speakers_own(thing) or (thing is passive and _the_plan(thing))):
        return None
    return Fact(CANCELLED, ENDING_KIND, unowned(phrase(thing, clause)))
