"""Reconcile's rules of conflict (``ingestion/phases/reconcile.py`` says what they decide): whether a new
candidate ends or replaces a memory of the same subject, over the vocabulary of
``ingestion/extractors/predicates.py``. :func:`scope_filter` narrows that in SQL; :func:`in_scope` says the
same in Python for the memories a reconcile pass holds.
"""

from __future__ import annotations

import functools
import re

from django.db.models import Q

from ingestion.cancellations import calls_off, cancel_scope, cancels
from ingestion.claim_words import numbers, unnumbered
from ingestion.claim_words import words as _words
from ingestion.conflicts_said import done, said_against, said_scope
from ingestion.corrections import corrected, corrects
from ingestion.deaths import buried, death_scope, is_death
from ingestion.extractors.predicates import (
    LEFT,
    NOT_LEAVABLE,
    ended_predicates,
    ending_base,
    ends,
    is_single_valued,
    normalise_predicate,
)
from ingestion.extractors.rules_cancellations import CANCELLED
from ingestion.extractors.rules_instructions import PREDICATE as INSTRUCTION
from ingestion.extractors.rules_lexicon import INSTRUCTION_VALUE_KINDS
from memhq.models import Candidate, Memory, MemoryKind


def entity_of(candidate: Candidate, role: str) -> str | None:
    """The entity id of the candidate's mention in ``role`` ("subject", "object"), if resolved."""
    return next((m.get("entity_id") for m in candidate.mentions if m.get("role") == role), None)


def other_numbers(candidate: Candidate, memory: Memory) -> bool:
    """Both state numbers, and not the same ("runs on Python 3.10" / "3.9"). A claim without any is not
    another value: "User lives in Lisbon." says what "User moved to Lisbon in April 2023." says."""
    stated, known = numbers(candidate.claim), numbers(memory.text)
    return bool(stated and known) and stated != known


def says_again(candidate: Candidate, memory: Memory) -> bool:
    """Of a memory of its subject, predicate and object: no other number, nor a thing under way now done."""
    return not other_numbers(candidate, memory) and not done(candidate, memory)


def changes_value(candidate: Candidate, memory: Memory) -> bool:
    """The candidate says what the memory says of the same thing (:func:`same_thing`), in the same words or
    up to three fewer (:func:`_leaves_out`), with one number changed: "User's dataset holds 12,500 rows."
    after "… 10,000 rows.", "aims for 95% accuracy" after "90%". A state's value changed. An event with
    another number is another event ("ran 5 km on 3 May", "8 km on 10 May"), and a claim with several other
    numbers is about another thing (another equation, another problem)."""
    if MemoryKind.EVENT in (candidate.kind, memory.kind):
        return False
    if not same_thing(candidate.subject, memory.subject):
        return False
    before, after = numbers(memory.text), numbers(candidate.claim)
    one_changed = len(before - after) == 1 and len(after - before) == 1
    said = unnumbered(_LATELY.sub(" ", _after(candidate.claim, candidate.subject)))  # "… 3 kids now."
    if one_changed and _leaves_out(said, unnumbered(_after(memory.text, memory.subject))):
        return True
    same_predicate = normalise_predicate(candidate.predicate) == normalise_predicate(memory.predicate)
    return one_changed and same_predicate and _same_but_number(candidate, memory)


_LATELY = re.compile(r"\b(?:now|nowadays|these days|lately|currently)\b", re.IGNORECASE)


#: Fewest words (numbers aside) an object must have to be compared on its own, without the claim's other
#: words: "to the gym … times a week" says what it is about; "Python 3.12" does not ("… for scripts").
MIN_OBJECT_WORDS = 3
_ALSO = re.compile(r"\b(?:also|too|as well)\b", re.IGNORECASE)


def _same_but_number(candidate: Candidate, memory: Memory) -> bool:
    """Two objects of one predicate in the same words, "now" / "lately" aside, but for the number: "to the
    gym five times a week lately" after "to the gym three times a week". Not a claim said as one more
    ("also")."""
    said, known = candidate.object_value, memory.object_value
    new, old = unnumbered(_LATELY.sub(" ", said)), unnumbered(known)
    if len(old) < MIN_OBJECT_WORDS or _ALSO.search(candidate.claim):
        return False
    return new == old and numbers(said) != numbers(known)


def _after(claim: str, subject: str) -> str:
    """The claim without its subject, where it starts with it ("User's trip budget| is $3,000.")."""
    return claim[len(subject) :] if claim.casefold().startswith(subject.casefold()) else claim


_OWNED_FOR = re.compile(r"^(?P<thing>[a-z0-9 ]+?) (?:for|of) (?P<what>[a-z0-9 ]+)$")


def _subject_words(subject: str) -> list[str]:
    """A subject's words, "the budget for the trip" read as "trip budget"."""
    owner, _, thing = subject.casefold().rpartition("'s ")
    found = _OWNED_FOR.match(" ".join(_words(thing)))
    if found is not None:
        thing = f"{found['what']} {found['thing']}"
    return _words(owner) + _words(thing)


def same_thing(said: str, known: str) -> bool:
    """Two subjects that name one thing: the same words, "budget for the trip" as "trip budget", or one
    word fewer ("User's appointment" after "User's dentist appointment")."""
    new, old = _subject_words(said), _subject_words(known)
    shorter, longer = sorted((new, old), key=len)
    if len(longer) - len(shorter) > 1:
        return False
    rest = iter(longer)
    return all(word in rest for word in shorter)


#: Most words a restated value may leave out ("to Madrid", "on"): more, and it may be another thing.
MAX_LEFT_OUT = 3


def _leaves_out(said: list[str], known: list[str]) -> bool:
    """``said`` is ``known`` with a few words left out, in order: a correction restates a value more briefly
    ("User's flight is on 14 March" after "User's flight to Madrid is on 12 March"), never with a word the
    first did not have ("User's flight to Paris …" is another flight)."""
    if len(known) - len(said) > MAX_LEFT_OUT:
        return False
    rest = iter(known)
    return all(word in rest for word in said)


def same_object(candidate: Candidate, memory: Memory) -> bool:
    """Do the candidate and the memory name the same object (by entity, or by words)?"""
    entity = entity_of(candidate, "object")
    if entity is not None and memory.object_entity_id is not None and str(memory.object_entity_id) == entity:
        return True
    return _words(candidate.object_value) == _words(memory.object_value)


def ending_covers(candidate: Candidate, memory: Memory) -> bool:
    """An ending's object matches the memory's: no object (ends every value), the same object, or its
    words inside the memory's object, each as a word or the start of one ("coffee" in "three coffees a
    day")."""
    wanted = _words(candidate.object_value)
    if not wanted or same_object(candidate, memory):
        return True
    have = _words(memory.object_value)
    return any(
        all(have[i + k].startswith(word) for k, word in enumerate(wanted))
        for i in range(len(have) - len(wanted) + 1)
    )


#: Words that name nothing on their own: "I had to get rid of *her*" ends no memory that says "her".
PRONOUNS = frozenset({"her", "him", "it", "them", "this", "that", "these", "those", "one", "everything"})


def _named(text: str) -> list[str]:
    """An ending's words, or none when it only points at something ("her", "it")."""
    said = _words(text)
    return [] if set(said) <= PRONOUNS else said


def is_ending(predicate: str) -> bool:
    name = normalise_predicate(predicate)
    return name in (LEFT, CANCELLED) or ending_base(name) is not None


#: Words that make an instruction standing, not part of what it asks.
_STANDING = re.compile(
    r"\b(?:always|from now on|going forward|from here on|in future|please)\b", re.IGNORECASE
)


def other_instruction_value(candidate: Candidate, memory: Memory) -> bool:
    """Two standing instructions in the same words but one, and that one a value of the same kind
    (``INSTRUCTION_VALUE_KINDS``): "… to always reply in English." / "… to reply in German from now on.".
    Any other pair both hold ("never use emojis" / "never use semicolons"); a condition is words too, so
    "when User asks about recipes, … answer in Spanish" leaves "… always answer in English" alone."""
    said = _words(_STANDING.sub(" ", candidate.claim))
    known = _words(_STANDING.sub(" ", memory.text))
    if len(said) != len(known):
        return False
    changed = [(new, old) for new, old in zip(said, known, strict=True) if new != old]
    return len(changed) == 1 and any(set(changed[0]) <= kind for kind in INSTRUCTION_VALUE_KINDS)


#: An instruction's claim that starts with its condition ("When User asks about X, …").
_CONDITION = re.compile(r"\s*(?:when|whenever|if|for)\b", re.IGNORECASE)
#: Words of an instruction's polarity: what never to do.
_NEVER = frozenset({"never", "not", "no"})
#: Words of when, not of what ("never include a summary anymore").
_WHEN = frozenset({"anymore", "again", "now", "from", "on", "today"})


def reversed_instruction(candidate: Candidate, memory: Memory) -> bool:
    """ "… to never use bullet points." after "… to always reply in bullet points." (or the other way round):
    one says never to do what the other asks for, the thing the "never" names (its words after the verb)
    being in the other. Neither has a condition ("when User asks about X, …" is another rule)."""
    if _CONDITION.match(candidate.claim) or _CONDITION.match(memory.text):
        return False
    said, known = _words(candidate.object_value), _words(memory.object_value)
    if (said[:1] == ["never"]) == (known[:1] == ["never"]):
        return False
    never, other = (said, known) if said[:1] == ["never"] else (known, said)
    thing = set(never[2:]) - _NEVER - _WHEN  # after "never" and its verb: "bullet points"
    return bool(thing) and thing <= set(other) and not _NEVER & set(other)


#: Words that say the claim holds from now on, unlike before; a leading "Now," only moves the talk on.
_NOW = re.compile(r"\b(?:now|nowadays|these days)\b", re.IGNORECASE)
_LEADING_NOW = re.compile(r"^\s*now\s*,", re.IGNORECASE)
#: Predicates of a taste or a thing used or had, where "now" and another kind of the same thing is a change.
KIND_CHANGE_PREDICATES = frozenset({"prefers", "likes", "dislikes", "uses", "owns", "hobby"})
#: Longest object (in words) such a change compares: a thing and its kind, not a sentence.
KIND_CHANGE_MAX_WORDS = 4


def says_now(candidate: Candidate) -> bool:
    """A claim of a ``KIND_CHANGE_PREDICATES`` predicate said to hold now ("… afternoon meetings now")."""
    if normalise_predicate(candidate.predicate) not in KIND_CHANGE_PREDICATES:
        return False
    return _NOW.search(_LEADING_NOW.sub("", candidate.claim)) is not None


def new_kind_now(candidate: Candidate, memory: Memory) -> bool:
    """ "User prefers afternoon meetings now." after "User prefers morning meetings.": the same predicate
    (a taste, a thing used or had), a thing of the same name ("meetings") of another kind, said to hold
    now. Without "now" both may hold; a thing with its words inside the other's ("hiking" / "hiking in the
    Alps") is the same one."""
    if not says_now(candidate) or normalise_predicate(candidate.predicate) != normalise_predicate(
        memory.predicate
    ):
        return False
    new = [w for w in _words(candidate.object_value) if w not in ("now", "nowadays")]
    old = _words(memory.object_value)
    if not (2 <= len(new) <= KIND_CHANGE_MAX_WORDS and 2 <= len(old) <= KIND_CHANGE_MAX_WORDS):
        return False
    return new[-1] == old[-1] and not (set(new) <= set(old) or set(old) <= set(new))


#: Predicates of a thing used or had, where the same name in another version replaces the old one.
VERSIONED_PREDICATES = frozenset({"uses", "owns"})


def is_new_version(candidate: Candidate) -> bool:
    """A thing used or had, with a version number, said as a change (an event: a switch, an upgrade, a
    purchase) or to hold now."""
    if normalise_predicate(candidate.predicate) not in VERSIONED_PREDICATES:
        return False
    changed = candidate.kind == MemoryKind.EVENT or says_now(candidate)
    return changed and bool(numbers(candidate.object_value))


def new_version(candidate: Candidate, memory: Memory) -> bool:
    """ "User upgraded to Python 3.12." after "User uses Python 3.9.", "an iPhone 15" bought after "an
    iPhone 12" had: the same name, another version. "uses Python 3.9 for the API" and "uses Python 3.12"
    said side by side, without a change, both hold."""
    if not is_new_version(candidate) or normalise_predicate(memory.predicate) not in VERSIONED_PREDICATES:
        return False
    new, old = numbers(candidate.object_value), numbers(memory.object_value)
    name = unnumbered(candidate.object_value)
    return bool(old and name) and new != old and name == unnumbered(memory.object_value)


def contradicts(candidate: Candidate, memory: Memory) -> bool:
    """Does the new candidate end or replace this (same-subject) memory?"""
    if normalise_predicate(candidate.predicate) == INSTRUCTION == normalise_predicate(memory.predicate):
        return other_instruction_value(candidate, memory) or reversed_instruction(candidate, memory)
    if calls_off(candidate):
        return cancels(candidate, memory)
    if is_death(candidate):
        return buried(candidate, memory)
    if corrects(candidate):
        return corrected(candidate, memory)
    if new_kind_now(candidate, memory) or new_version(candidate, memory) or said_against(candidate, memory):
        return True
    if ends(candidate.predicate, memory.predicate):
        return (
            ending_covers(candidate, memory)
            if is_ending(candidate.predicate)
            else same_object(candidate, memory)
        )
    return (
        is_single_valued(candidate.predicate)
        and normalise_predicate(candidate.predicate) == normalise_predicate(memory.predicate)
        and not same_object(candidate, memory)
    )


def differs(candidate: Candidate, memory: Memory) -> bool:
    """A close claim that is still another fact: the two are about other subjects or state other numbers
    ("runs on Python 3.9" / "3.10": one vector, two values), one contradicts the other, one of the two
    ends what the other states, or the same predicate has another object."""
    if candidate.subject.casefold() != memory.subject.casefold():
        return True
    if other_numbers(candidate, memory):
        return True
    if contradicts(candidate, memory) or contradicts_back(memory, candidate):
        return True
    same_predicate = normalise_predicate(candidate.predicate) == normalise_predicate(memory.predicate)
    if same_predicate and _other_things(candidate.object_value, memory.object_value):
        return True  # "prefers afternoon meetings" / "prefers morning meetings": not said again
    return same_predicate and is_ending(candidate.predicate) != is_ending(memory.predicate)


def _other_things(said: str, known: str) -> bool:
    """Two objects, neither with its words inside the other's ("morning meetings" / "afternoon meetings";
    not "hiking" / "hiking in the Alps")."""
    new, old = set(_words(said)), set(_words(known))
    return bool(new and old) and not (new <= old or old <= new)


def scope_filter(candidate: Candidate) -> Q:
    """In SQL: the same subject's memories the candidate could end or replace (:func:`in_scope`); a death
    the pet's (``ingestion.deaths``)."""
    name = normalise_predicate(candidate.predicate)
    if is_death(candidate):
        return death_scope(candidate)
    same_subject = Q(subject__iexact=candidate.subject)
    if name == LEFT:
        words = _named(candidate.object_value)
        if not words:
            return Q()
        return same_subject & ~Q(predicate__in=NOT_LEAVABLE) & Q(object_value__icontains=words[0])
    if name == CANCELLED:
        cancelled = cancel_scope(candidate)
        return same_subject & cancelled if cancelled else Q()
    again = says_now(candidate) or corrects(candidate)
    predicates = scope_predicates(name) | ({name} if again else frozenset())
    predicates |= VERSIONED_PREDICATES if is_new_version(candidate) else frozenset()
    predicates |= said_scope(candidate)
    return same_subject & Q(predicate__in=sorted(predicates)) if predicates else Q()


def in_scope(candidate: Candidate, memory: Memory) -> bool:
    """In Python, what :func:`scope_filter` selects (for memories this pass holds)."""
    if is_death(candidate):
        return buried(candidate, memory)
    if memory.subject.casefold() != candidate.subject.casefold():
        return False
    name = normalise_predicate(candidate.predicate)
    if name == LEFT:
        words = _named(candidate.object_value)
        leavable = memory.predicate not in NOT_LEAVABLE
        return bool(words) and leavable and words[0] in memory.object_value.casefold()
    if name == CANCELLED:
        return cancels(candidate, memory)
    if is_new_version(candidate) and memory.predicate in VERSIONED_PREDICATES:
        return True
    if memory.predicate in said_scope(candidate):
        return True
    again = says_now(candidate) or corrects(candidate)
    return memory.predicate in scope_predicates(name) or (again and memory.predicate == name)


@functools.lru_cache(maxsize=1024)
def scope_predicates(name: str) -> frozenset[str]:
    """The predicates a candidate of predicate ``name`` can end (and its own when it is single-valued, or an
    instruction: :func:`other_instruction_value`)."""
    own = is_single_valued(name) or name == INSTRUCTION
    return frozenset(ended_predicates(name)) | ({name} if own else frozenset())


def contradicts_back(memory: Memory, candidate: Candidate) -> bool:
    """Would the memory, were it new, end the candidate's fact? (the cosine guard looks both ways)"""
    if not ends(memory.predicate, candidate.predicate):
        return False
    if is_ending(memory.predicate):
        wanted, have = _words(memory.object_value), _words(candidate.object_value)
        return not wanted or wanted == have or " ".join(wanted) in " ".join(have)
    return _words(memory.object_value) == _words(candidate.object_value)


def replaces(memories: list[Memory], changed: Memory | None) -> str:
    """A superseding candidate's reason, for the operator: which memories it replaces, and whether one is a
    changed number (``changed``, :func:`changes_value`) rather than a rule of its predicate."""
    prefix = "a number changed; " if changed in memories else ""
    return prefix + "replaces " + ", ".join(str(memory.pk) for memory in memories)
