"""Reconcile's rule for a plan called off (``ingestion/extractors/rules_cancellations.py`` reads it): which
live memories a ``cancelled`` candidate ends. ``ingestion.conflicts`` applies it beside the other rules.
"""

from __future__ import annotations

import re
from typing import Final

from django.db.models import Q

from ingestion.claim_words import words
from ingestion.extractors.predicates import NOT_LEAVABLE, SINGLE_VALUED, normalise_predicate
from ingestion.extractors.rules_cancellations import CANCELLED, PLAN_NOUNS
from memhq.models import Candidate, Memory, MemoryKind

#: What a cancellation never ends: what :data:`NOT_LEAVABLE` keeps but a plan or a decision, and a state
#: ("I cancelled the Lisbon trip" does not end "lives in Lisbon").
NOT_CANCELLABLE = (NOT_LEAVABLE - {"plans_to", "decided"}) | SINGLE_VALUED
#: Words of an arrangement that repeats: one cancellation does not end it.
_REPEATS = re.compile(
    r"\b(?:every|each|weekly|daily|monthly|yearly|(?:mon|tues|wednes|thurs|fri|satur|sun)days)\b",
    re.IGNORECASE,
)


#: What a cancellation ends for good, with what repeats: "I cancelled my Audible subscription".
FOR_GOOD: Final = frozenset({"membership", "subscription", "account"})


#: A planned event's noun and the words a plan of it is told with ("We're getting married in June" is ended
#: by "we called off the wedding").
SAID_AS: Final = {
    "wedding": ("wedding", "married", "marry", "marrying"),
    "move": ("move", "moving", "relocating"),
    "relocation": ("relocation", "moving", "relocating"),
}


def cancelled_words(candidate: Candidate) -> list[str]:
    """The words that name which plan was called off ("Lisbon trip" → ["lisbon"]; "the trip" → ["trip"])."""
    said = words(candidate.object_value)
    return [w for w in said if w not in PLAN_NOUNS] or said


def calls_off(candidate: Candidate) -> bool:
    """A cancellation: what it ends is a plan dated after it, not a later state that outdates it."""
    return normalise_predicate(candidate.predicate) == CANCELLED


def cancels(candidate: Candidate, memory: Memory) -> bool:
    """A ``cancelled`` candidate ends a live plan or arrangement whose words hold the cancelled thing's
    (:func:`cancelled_words`): "User is flying to Lisbon on 3 May." by "User had to cancel the Lisbon
    trip.", "User has a gym membership." by "User cancelled User's gym membership.". Not a state, a taste,
    a past event, nor what repeats ("I cancelled the meeting" leaves "… a team meeting every Monday")."""
    if normalise_predicate(memory.predicate) in NOT_CANCELLABLE or memory.kind == MemoryKind.EVENT:
        return False
    if _REPEATS.search(memory.text) and not set(words(candidate.object_value)) & FOR_GOOD:
        return False  # one meeting called off; but a subscription cancelled ends "uses X every day"
    wanted = cancelled_words(candidate)
    said = set(words(memory.text))
    return bool(wanted) and all(said & set(SAID_AS.get(word, (word,))) for word in wanted)


def cancel_scope(candidate: Candidate) -> Q:
    """In SQL, the memories :func:`cancels` may end (of the candidate's subject: the caller adds it); the
    plan's words may be anywhere in its text ("is flying | to Lisbon on 3 May"). ``Q()`` (nothing, in the
    caller's union) when no word names the plan."""
    named = cancelled_words(candidate)
    if not named:
        return Q()
    told = Q()
    for word in SAID_AS.get(named[0], (named[0],)):
        told |= Q(text__icontains=word)
    return ~Q(predicate__in=sorted(NOT_CANCELLABLE)) & told
