"""Phase 5 — compare each candidate with the user's live memories: reinforce, supersede, reject or accept.

Runs in ONE transaction under the per-user memory lock, so two episodes of the same user never reconcile
at the same time. Every memory/evidence write is journaled in the episode's batch. Episodes processed out of
order still end right: a candidate said before the active value it conflicts with started is kept as
history (superseded by the newer one) instead of replacing it. A candidate said later but dated earlier
than that value ("I went vegan in January", said in March, after "I'm vegetarian" on 12 January) starts
when the old value was last known to hold, not before it.

What a new memory supersedes (the rules: ``ingestion/conflicts.py``):

* the live memories of the same subject and single-valued predicate with another object ("works at
  Google" → "works at Anthropic"), except those this episode itself just created from the same message
  ("I live in Lisbon and Porto" is two values, not a change);
* the live memories it ends (:func:`ingestion.extractors.predicates.ends`): an ending ("no longer works at
  Google", "left Google") ends the memories naming the same object (for an ending, the object's words
  inside a longer object count too: "gave up coffee" ends "drinks coffee every morning"; an ending with
  no object, "I quit my job", ends every value of its predicate); an opposite ("dislikes sushi") ends
  "likes sushi"; re-stating a state ends its "no_longer_" memory;
* a live standing instruction that says what the candidate says with one value of the same kind changed
  ("reply in German from now on" after "always reply in English"; ``conflicts.other_instruction_value``);
* the nearest live memory when the candidate says what it says in the same words (or fewer) with one number
  or date changed ("User's grocery budget is 550 dollars." after "… 400 dollars.", a deadline moved): a value
  changed. Not for events ("ran 5 km on 2 May", "ran 8 km on 9 May" are two runs).

The superseded memory gets ``valid_until`` = the new memory's ``valid_from`` (the date the text gives,
else the message's document date), status superseded and ``superseded_by`` the new memory. A near-identical
claim (cosine ≥ ``REINFORCE_COSINE``) is never taken as "the same fact" when the two differ in a way that
matters ("User works at Google." / "User no longer works at Google.", or other numbers).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.db.models import Q, QuerySet

from ingestion.cancellations import calls_off
from ingestion.conflicts import (
    changes_value,
    contradicts,
    differs,
    entity_of,
    in_scope,
    is_ending,
    replaces,
    says_again,
    scope_filter,
)
from ingestion.runner import PhaseOutcome
from memhq.ai.provider import get_embedder
from memhq.models import Candidate, Episode, EpisodeMessage, Evidence, Memory, MemoryOrigin, MemoryStatus
from memhq.selectors.nearest import cosine_distance, few_rows, nearest_each
from memhq.services.bulk import rows_update
from memhq.services.journal import Journal, batch_open
from memhq.services.locks import LockNamespace, lock_user
from memhq.services.memories import (
    REINFORCED_FIELDS,
    SUPERSEDED_FIELDS,
    evidence_bulk_add,
    memories_insert,
    memory_build,
    memory_reinforce,
    memory_supersede,
)

CONFIDENCE_FLOOR = 0.35
REINFORCE_COSINE = 0.95
#: How many nearest live memories are read up front per claim: the nearest one that this episode has not
#: superseded by the time the claim is decided is the one compared (all superseded: it is read again).
NEAREST_DEPTH = 3

Decision = Candidate.Decision


@dataclass
class Prepared:
    candidates: list[Candidate]
    vectors: np.ndarray  # one row per candidate claim


def compute(episode: Episode) -> Prepared:
    candidates = list(Candidate.objects.filter(episode=episode).order_by("ordinal"))
    vectors = (
        get_embedder().embed([candidate.claim for candidate in candidates]) if candidates else np.zeros(0)
    )
    return Prepared(candidates=candidates, vectors=vectors)


def _active(episode: Episode) -> QuerySet[Memory]:
    return Memory.objects.filter(
        project_id=episode.project_id, user_id=episode.user_id, status=MemoryStatus.ACTIVE
    ).defer("embedding")


def _exact_key(subject: str, predicate: str, object_value: str, text: str) -> tuple[str, str, str]:
    """What "says exactly the same" compares: subject, predicate and object, or the whole claim when the
    parse left the object empty ("User's deadline is on 1 March 2027.": the date is not in the object)."""
    return subject.casefold(), predicate, (object_value or text).casefold()


class Reconciler:
    """Decides an episode's candidates in order, as a unit of work with a fixed number of statements however
    many candidates there are:

    * what the candidates need is read once for all of them, one query each: the live memories saying
      exactly what a candidate says, the nearest live memories of every other candidate's claim (one
      LATERAL kNN, ``memhq.selectors.nearest.nearest_each``), the live memories any candidate could
      contradict (:attr:`scope`) and the episode's messages;
    * every memory read is kept once (``loaded``), so what this pass decides (a reinforcement, a
      supersession) is seen by the later candidates' decisions; the memories it creates are compared in
      memory (their vectors are at hand);
    * every write is made at the end (:meth:`flush`): the new memories in one INSERT, the reinforced and
      superseded ones in one UPDATE, the evidence in one INSERT.
    """

    def __init__(
        self, episode: Episode, journal: Journal, candidates: list[Candidate], vectors: np.ndarray
    ) -> None:
        self.episode = episode
        self.journal = journal
        self.created_from: dict[object, int | None] = {}  # memory id → source message, for this episode
        self.created: list[Memory] = []
        self.loaded: dict[object, Memory] = {}
        self.reinforced: dict[object, Memory] = {}
        self.superseded: dict[object, Memory] = {}
        self.evidence: list[Evidence] = []
        self.deciding = [c for c in candidates if c.confidence >= CONFIDENCE_FLOOR]
        self.exact = self._exact_matches(self.deciding)
        self.nearest = self._nearest(candidates, vectors)
        self.messages = {
            message.index: message
            for message in EpisodeMessage.objects.filter(episode=episode).only(
                "index", "caller_id", "content", "document_date"
            )
        }

    def _one(self, memory: Memory) -> Memory:
        """The instance this pass already holds for that row (with its unwritten changes)."""
        return self.loaded.setdefault(memory.pk, memory)

    def _exact_matches(self, candidates: list[Candidate]) -> dict[tuple[str, str, str], list[Memory]]:
        """The live memories that say exactly what a candidate says (same subject, predicate and object,
        case aside); memories this pass creates are added (a superseded one is skipped by
        :meth:`_exact`, its instance says so)."""
        pairs = {(c.subject, c.predicate) for c in candidates}
        if not pairs:
            return {}
        which = Q()
        for subject, predicate in pairs:
            which |= Q(subject__iexact=subject, predicate=predicate)
        found: dict[tuple[str, str, str], list[Memory]] = {}
        for memory in _active(self.episode).filter(which).order_by("pk"):
            key = _exact_key(memory.subject, memory.predicate, memory.object_value, memory.text)
            found.setdefault(key, []).append(self._one(memory))
        return found

    def _nearest(
        self, candidates: list[Candidate], vectors: np.ndarray
    ) -> dict[int, list[tuple[Memory, float]]]:
        """Candidate ordinal → the ``NEAREST_DEPTH`` live memories nearest to its claim, nearest first, for
        the candidates with no exact match (the others never need it)."""
        asking = [
            (candidate.ordinal, vector)
            for candidate, vector in zip(candidates, vectors, strict=True)
            if candidate.confidence >= CONFIDENCE_FLOOR and self._exact(candidate) is None
        ]
        if not asking:
            return {}
        found = nearest_each(
            _active(self.episode),
            [vector for _, vector in asking],
            exact=self.few_memories,
            depth=NEAREST_DEPTH,
        )
        return {
            ordinal: [(self._one(memory), distance) for memory, distance in pairs]
            for (ordinal, _), pairs in zip(asking, found, strict=True)
        }

    @functools.cached_property
    def scope(self) -> list[Memory]:
        """The live memories any candidate could end or replace (:func:`in_scope`): one query, on the first
        candidate that is not the same fact as a memory (an episode that only repeats itself reads none)."""
        which = Q()
        for candidate in self.deciding:
            which |= scope_filter(candidate)
        if not which:
            return []
        return [self._one(memory) for memory in _active(self.episode).filter(which)]

    def flush(self) -> None:
        memories_insert(self.created)
        new = {memory.pk for memory in self.created}
        changed = {**self.reinforced, **self.superseded}
        rows_update(
            [memory for pk, memory in changed.items() if pk not in new], REINFORCED_FIELDS + SUPERSEDED_FIELDS
        )
        evidence_bulk_add(self.journal, self.evidence)

    @functools.cached_property
    def few_memories(self) -> bool:
        """Once per episode: are the user's memories compared exactly (``memhq.selectors.nearest``)?"""
        return few_rows(
            Memory.objects.filter(project_id=self.episode.project_id, user_id=self.episode.user_id)
        )

    def valid_from(self, candidate: Candidate) -> datetime:
        if candidate.valid_from is not None:
            return candidate.valid_from
        return self.said_at(candidate)

    def said_at(self, candidate: Candidate) -> datetime:
        """The document date of the message the candidate comes from."""
        first = (
            self.messages.get(candidate.source_message_indexes[0])
            if candidate.source_message_indexes
            else None
        )
        return (first.document_date if first else None) or self.episode.received_at

    def add_evidence(self, memory: Memory, candidate: Candidate) -> None:
        indexes = list(candidate.source_message_indexes)
        first = self.messages.get(indexes[0]) if indexes else None
        self.evidence.append(
            Evidence(
                memory=memory,
                episode=self.episode,
                message_indexes=indexes,
                caller_message_ids=[self.messages[i].caller_id for i in indexes if i in self.messages],
                quote=first.content[candidate.span_start : candidate.span_end] if first else "",
            )
        )

    def _exact(self, candidate: Candidate) -> Memory | None:
        """A live memory with the candidate's subject, predicate and object (:func:`_exact_key`) that the
        candidate says again (not "uses Next.js" of 13, then of 14: the object is the name alone)."""
        key = _exact_key(candidate.subject, candidate.predicate, candidate.object_value, candidate.claim)
        live = (m for m in self.exact.get(key, ()) if m.status == MemoryStatus.ACTIVE)
        return next((m for m in live if says_again(candidate, m)), None)

    @staticmethod
    def close_same(candidate: Candidate, nearest: tuple[Memory, float] | None) -> Memory | None:
        """``nearest`` (the nearest live memory, with its distance) when it states the candidate's fact in
        other words: a near-identical claim that does not differ in what matters."""
        if nearest is None:
            return None
        memory, distance = nearest
        return memory if 1.0 - distance >= REINFORCE_COSINE and not differs(candidate, memory) else None

    def nearest_live(self, candidate: Candidate, vector: np.ndarray) -> tuple[Memory, float] | None:
        """The live memory nearest to the claim now: of those read up front, the nearest not superseded by
        this pass (read again if all were), or one this pass created, whichever is nearer."""
        stored = self.nearest.get(candidate.ordinal)
        live = [pair for pair in stored or () if pair[0].status == MemoryStatus.ACTIVE]
        best: tuple[Memory, float] | None = None
        if live:
            best = live[0]
        elif stored is None or len(stored) == NEAREST_DEPTH:
            best = self._nearest_stored(vector)
        for memory in self.created:
            if memory.status == MemoryStatus.ACTIVE:
                distance = 1.0 - float(np.dot(np.asarray(memory.embedding), vector))  # both unit length
                if best is None or distance < best[1]:
                    best = (memory, distance)
        return best

    def _nearest_stored(self, vector: np.ndarray) -> tuple[Memory, float] | None:
        """One kNN over the written live memories, less those this pass superseded (not written yet)."""
        nearest = (
            _active(self.episode)
            .exclude(pk__in=list(self.superseded))
            .exclude(embedding__isnull=True)
            .annotate(distance=cosine_distance(vector, exact=self.few_memories))
            .order_by("distance")
            .first()
        )
        return None if nearest is None else (self._one(nearest), float(nearest.distance))

    def create(
        self, candidate: Candidate, vector: np.ndarray, valid_from: datetime | None = None, **extra: object
    ) -> Memory:
        memory = memory_build(
            self.journal,
            text=candidate.claim,
            kind=candidate.kind,
            subject=candidate.subject,
            subject_entity_id=entity_of(candidate, "subject"),
            predicate=candidate.predicate,
            object_value=candidate.object_value,
            object_entity_id=entity_of(candidate, "object"),
            entity_ids=list(dict.fromkeys(candidate.entity_ids)),
            confidence=candidate.confidence,
            importance=candidate.importance,
            valid_from=valid_from or self.valid_from(candidate),
            origin=MemoryOrigin.EXTRACTED,
            episode=self.episode,
            embedding=vector,
            **extra,
        )
        self.add_evidence(memory, candidate)
        first = candidate.source_message_indexes[0] if candidate.source_message_indexes else None
        self.created_from[memory.pk] = first
        self.loaded[memory.pk] = memory
        self.created.append(memory)
        key = _exact_key(memory.subject, memory.predicate, memory.object_value, memory.text)
        self.exact.setdefault(key, []).append(memory)
        return memory

    def conflicting(self, candidate: Candidate, changed: Memory | None) -> list[Memory]:
        """The live memories the candidate ends or replaces (newest first): by the rules of its predicate,
        and ``changed``, the memory it says again with one number changed."""
        first = candidate.source_message_indexes[0] if candidate.source_message_indexes else None
        live = [
            memory
            for memory in dict.fromkeys([*self.scope, *self.created])
            if memory.status == MemoryStatus.ACTIVE and in_scope(candidate, memory)
        ]
        found = []
        candidates = dict.fromkeys([*live, *([changed] if changed else [])])
        for memory in sorted(candidates, key=lambda memory: memory.valid_from, reverse=True):
            if memory is not changed and not contradicts(candidate, memory):
                continue
            if (
                memory.pk in self.created_from
                and self.created_from[memory.pk] == first
                and not is_ending(candidate.predicate)
            ):
                continue  # two values in one message ("I live in Lisbon and Porto"), not a change
            found.append(memory)
        return found

    def decide(self, candidate: Candidate, vector: np.ndarray) -> None:
        if candidate.confidence < CONFIDENCE_FLOOR:
            candidate.decision = Decision.REJECT
            candidate.reason = f"confidence {candidate.confidence:.2f} below the floor {CONFIDENCE_FLOOR}"
            return
        exact = self._exact(candidate)
        nearest = None if exact else self.nearest_live(candidate, vector)
        same = exact or self.close_same(candidate, nearest)
        if same is not None:
            memory_reinforce(
                self.journal,
                same,
                seen_at=self.valid_from(candidate),
                importance=candidate.importance,
                save=False,
            )
            self.reinforced[same.pk] = same
            self.add_evidence(same, candidate)
            candidate.decision, candidate.memory, candidate.reason = Decision.REINFORCE, same, "same fact"
            return
        # Its words are the nearest memory's but for one number: no cosine threshold needed (400 → 550
        # dollars is 0.89 in MiniLM).
        changed = nearest[0] if nearest and changes_value(candidate, nearest[0]) else None
        conflicting = self.conflicting(candidate, changed)
        valid_from = self.valid_from(candidate)
        later = [
            memory for memory in conflicting if memory.valid_from > valid_from and not calls_off(candidate)
        ]
        newer = [memory for memory in later if memory.valid_from > self.said_at(candidate)]
        if newer:
            # An older statement arriving late: keep it as history, superseded by what is already known.
            memory = self.create(
                candidate,
                vector,
                status=MemoryStatus.SUPERSEDED,
                valid_until=newer[-1].valid_from,
                superseded_by=newer[-1],
            )
            candidate.decision, candidate.memory = Decision.ACCEPT, memory
            candidate.reason = f"older than the active value; kept as history of {newer[-1].pk}"
            return
        # Said after the old value was last known, but dated before it ("I went vegan in January", said in
        # March, after "I'm vegetarian" on 12 January): the change happened after what was known.
        start = max((memory.valid_from for memory in later), default=None)
        memory = self.create(candidate, vector, valid_from=start)
        candidate.memory = memory
        if conflicting:
            for old in conflicting:
                memory_supersede(self.journal, old, by=memory, save=False)
                self.superseded[old.pk] = old
            candidate.decision = Decision.SUPERSEDE
            candidate.reason = replaces(conflicting, changed)
        else:
            candidate.decision, candidate.reason = Decision.ACCEPT, "new"


def store(episode: Episode, data: Prepared) -> PhaseOutcome:
    lock_user(LockNamespace.MEMORIES, episode.project_id, episode.user_id)
    journal = batch_open(episode=episode)
    reconciler = Reconciler(episode, journal, data.candidates, data.vectors)
    for candidate, vector in zip(data.candidates, data.vectors, strict=True):
        reconciler.decide(candidate, vector)
    reconciler.flush()
    rows_update(data.candidates, ["decision", "reason", "memory"])
    return PhaseOutcome(counts={"journal_entries": journal.flush()})
