"""Rules of conflict that read what the two claims say beside their predicates (``ingestion.conflicts``
asks them for every pair it considers):

* a preference against another thing ends that thing's preference (``ingestion.preferred_over``);
* a thing in progress, then done: "User is paying off User's student loans." ended by "User paid off
  User's student loans." (the same predicate and object; the memory's claim is a present progressive, the
  candidate an event that is not);
* a thing prepared for, then done: "User is studying for the CPA exam." ended by "User passed the CPA
  exam.", "User is training for the Boston marathon." by "User finished the Boston marathon." (a verb of
  completion, :data:`COMPLETING`, of the object a verb of preparing, :data:`PREPARING`, was for; the
  predicate table's ``COMPLETIONS`` ends doing a thing by finishing that same object, "finished Dune"
  after "is reading Dune", and cannot see past the "for" the preparing's object keeps);
* a habit denied, then taken up, or the other way round: "User doesn't drink." (``not_drink``) and "User
  started drinking again." (``drink``), the same object.
"""

from __future__ import annotations

import re

from ingestion.claim_words import words
from ingestion.extractors.predicates import normalise_predicate
from ingestion.preferred_over import PREDICATE as PREFERS
from ingestion.preferred_over import preferred_over, set_aside
from memhq.models import Candidate, Memory, MemoryKind

NOT_PREFIX = "not_"
#: A claim of a thing under way: "User is paying off …", "User has been reading …" (in its first words).
_IN_PROGRESS = re.compile(r"^(?:\S+\s+){1,4}?(?:is|are|am|has been|have been)\s+(?:\w+ly\s+)?\w+ing\b")


#: Verbs that end the preparing for their object (an exam passed, a race run, a thesis submitted). "failed"
#: is not one: whoever fails an exam may well go on studying for it.
COMPLETING = frozenset(
    {"pass", "finish", "complete", "submit", "defend", "ace", "take", "run", "sit", "publish", "hand_in"}
)
#: Predicates of preparing for a thing, which a verb of :data:`COMPLETING` of that thing ends.
PREPARING = frozenset(
    {"study", "train", "prepare", "working_on", "work_on", "write", "practice", "revise", "cram"}
)
_FOR = frozenset({"for", "on"})


def _flipped(name: str) -> str:
    return name.removeprefix(NOT_PREFIX) if name.startswith(NOT_PREFIX) else NOT_PREFIX + name


def _same_words(candidate: Candidate, memory: Memory) -> bool:
    said = words(candidate.object_value)
    return bool(said) and said == words(memory.object_value)


def done(candidate: Candidate, memory: Memory) -> bool:
    """The candidate says done what the memory says is under way (module doc)."""
    if candidate.kind != MemoryKind.EVENT or _IN_PROGRESS.match(candidate.claim):
        return False
    same = normalise_predicate(candidate.predicate) == normalise_predicate(memory.predicate)
    return same and _IN_PROGRESS.match(memory.text) is not None and _same_words(candidate, memory)


def completes(candidate: Candidate, memory: Memory) -> bool:
    """The candidate says done the thing the memory says is being prepared for (module doc)."""
    if candidate.kind != MemoryKind.EVENT or normalise_predicate(candidate.predicate) not in COMPLETING:
        return False
    if normalise_predicate(memory.predicate) not in PREPARING or not _IN_PROGRESS.match(memory.text):
        return False
    known = words(memory.object_value)
    known = known[1:] if known and known[0] in _FOR else known
    said = words(candidate.object_value)
    return bool(said) and said == known


def flips(candidate: Candidate, memory: Memory) -> bool:
    """One says "not" what the other says, of the same object (module doc)."""
    name = normalise_predicate(candidate.predicate)
    return normalise_predicate(memory.predicate) == _flipped(name) and _same_words(candidate, memory)


def said_against(candidate: Candidate, memory: Memory) -> bool:
    """Does the candidate end the memory by one of this module's rules?"""
    return (
        preferred_over(candidate, memory)
        or done(candidate, memory)
        or completes(candidate, memory)
        or flips(candidate, memory)
    )


def said_scope(candidate: Candidate) -> frozenset[str]:
    """The predicates of the memories :func:`said_against` may end."""
    name = normalise_predicate(candidate.predicate)
    scope = {_flipped(name)}
    if candidate.kind == MemoryKind.EVENT:
        scope.add(name)
        scope |= PREPARING if name in COMPLETING else frozenset()
    if set_aside(candidate):
        scope.add(PREFERS)
    return frozenset(scope)
