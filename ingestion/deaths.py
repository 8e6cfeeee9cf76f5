"""A death ends the pet: "Pickle died last month." (subject Pickle, predicate ``died``) ends "User has a
cat named Pickle." (``has_pet`` Pickle), and "Our dog died." ("User's dog") ends "User has a dog." and
"User has a dog named Rex." (a pet the user has, of the kind said: two dogs would both end). The one
rule of reconcile across subjects (``ingestion.conflicts`` asks it first): the deceased is the memory's
object, not its subject. A person's death ends nothing: "User's grandfather lives in Leeds." is history
the user may still ask about, and the family tie stays.
"""

from __future__ import annotations

import re

from django.db.models import Q

from ingestion.claim_words import words
from ingestion.extractors.base import USER_SUBJECT
from ingestion.extractors.predicates import DIED, normalise_predicate
from memhq.models import Candidate, Memory

PET: str = "has_pet"
_POSSESSIVE = USER_SUBJECT + "'s "


def is_death(candidate: Candidate) -> bool:
    return normalise_predicate(candidate.predicate) == DIED


def _deceased(candidate: Candidate) -> tuple[str, bool]:
    """Who died, as a ``has_pet`` memory names it ("Pickle"; "dog" for "User's dog"), and whether that is
    the kind of the user's pet rather than a name."""
    name = candidate.subject.strip().casefold()
    return name.removeprefix(_POSSESSIVE), name.startswith(_POSSESSIVE)


def death_scope(candidate: Candidate) -> Q:
    """In SQL: the pets of that name (whoever's), or the user's pets of that kind."""
    name, kind = _deceased(candidate)
    named = Q(predicate=PET, object_value__iexact=name)
    if not kind:
        return named
    return named | Q(predicate=PET, subject__iexact=USER_SUBJECT, text__iregex=rf"\m{re.escape(name)}\M")


def buried(candidate: Candidate, memory: Memory) -> bool:
    """In Python, what :func:`death_scope` selects: the death ends this memory."""
    name, kind = _deceased(candidate)
    if memory.predicate != PET:
        return False
    own = kind and memory.subject.casefold() == USER_SUBJECT and name in words(memory.text)
    return own or memory.object_value.strip().casefold() == name
