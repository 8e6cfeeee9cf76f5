"""Phase 5 — compare each candidate with the user's live memories: reinforce, supersede, reject or accept.

Runs in ONE transaction under the per-user memory lock, so two episodes of the same user never reconcile
at the same time. Every memory/evidence write is journaled in the episode's batch. Episodes processed out of
order still end right: a candidate older than the active value it conflicts with is kept as history
(superseded by the newer one) instead of replacing it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.db.models import QuerySet

from ingestion.extractors.predicates import is_single_valued
from ingestion.runner import PhaseOutcome
from memhq.ai.provider import get_embedder
from memhq.models import Candidate, Episode, EpisodeMessage, Memory, MemoryOrigin, MemoryStatus
from memhq.selectors.nearest import cosine_distance, few_rows
from memhq.services.journal import Journal, batch_open
from memhq.services.locks import LockNamespace, lock_user
from memhq.services.memories import evidence_add, memory_create, memory_reinforce, memory_supersede

CONFIDENCE_FLOOR = 0.35
REINFORCE_COSINE = 0.95

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


def _entity(candidate: Candidate, role: str) -> str | None:
    return next((m.get("entity_id") for m in candidate.mentions if m.get("role") == role), None)


class Reconciler:
    def __init__(self, episode: Episode, journal: Journal) -> None:
        self.episode = episode
        self.journal = journal
        self.messages = {
            message.index: message
            for message in EpisodeMessage.objects.filter(episode=episode).only(
                "index", "caller_id", "content", "document_date"
            )
        }

    @functools.cached_property
    def few_memories(self) -> bool:
        """Once per episode: are the user's memories compared exactly (``memhq.selectors.nearest``)?"""
        return few_rows(
            Memory.objects.filter(project_id=self.episode.project_id, user_id=self.episode.user_id)
        )

    def valid_from(self, candidate: Candidate) -> datetime:
        if candidate.valid_from is not None:
            return candidate.valid_from
        first = (
            self.messages.get(candidate.source_message_indexes[0])
            if candidate.source_message_indexes
            else None
        )
        return (first.document_date if first else None) or self.episode.received_at

    def add_evidence(self, memory: Memory, candidate: Candidate) -> None:
        indexes = list(candidate.source_message_indexes)
        first = self.messages.get(indexes[0]) if indexes else None
        evidence_add(
            self.journal,
            memory,
            episode=self.episode,
            message_indexes=indexes,
            caller_message_ids=[self.messages[i].caller_id for i in indexes if i in self.messages],
            quote=first.content[candidate.span_start : candidate.span_end] if first else "",
        )

    def find_same(self, candidate: Candidate, vector: np.ndarray) -> Memory | None:
        exact = (
            _active(self.episode)
            .filter(
                subject__iexact=candidate.subject,
                predicate=candidate.predicate,
                object_value__iexact=candidate.object_value,
            )
            .first()
        )
        if exact is not None:
            return exact
        nearest = (
            _active(self.episode)
            .exclude(embedding__isnull=True)
            .annotate(distance=cosine_distance(vector, exact=self.few_memories))
            .order_by("distance")
            .first()
        )
        if nearest is not None and 1.0 - float(nearest.distance) >= REINFORCE_COSINE:
            return nearest
        return None

    def create(self, candidate: Candidate, vector: np.ndarray, **extra: object) -> Memory:
        memory = memory_create(
            self.journal,
            text=candidate.claim,
            kind=candidate.kind,
            subject=candidate.subject,
            subject_entity_id=_entity(candidate, "subject"),
            predicate=candidate.predicate,
            object_value=candidate.object_value,
            object_entity_id=_entity(candidate, "object"),
            entity_ids=list(dict.fromkeys(candidate.entity_ids)),
            confidence=candidate.confidence,
            importance=candidate.importance,
            valid_from=self.valid_from(candidate),
            origin=MemoryOrigin.EXTRACTED,
            episode=self.episode,
            embedding=vector,
            **extra,
        )
        self.add_evidence(memory, candidate)
        return memory

    def decide(self, candidate: Candidate, vector: np.ndarray) -> None:
        if candidate.confidence < CONFIDENCE_FLOOR:
            candidate.decision = Decision.REJECT
            candidate.reason = f"confidence {candidate.confidence:.2f} below the floor {CONFIDENCE_FLOOR}"
            return
        same = self.find_same(candidate, vector)
        if same is not None:
            memory_reinforce(
                self.journal, same, seen_at=self.valid_from(candidate), importance=candidate.importance
            )
            self.add_evidence(same, candidate)
            candidate.decision, candidate.memory, candidate.reason = Decision.REINFORCE, same, "same fact"
            return
        conflicting = (
            list(
                _active(self.episode)
                .filter(subject__iexact=candidate.subject, predicate=candidate.predicate)
                .order_by("-valid_from")
            )
            if is_single_valued(candidate.predicate)
            else []
        )
        valid_from = self.valid_from(candidate)
        newer = [memory for memory in conflicting if memory.valid_from > valid_from]
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
        memory = self.create(candidate, vector)
        candidate.memory = memory
        if conflicting:
            for old in conflicting:
                memory_supersede(self.journal, old, by=memory)
            candidate.decision = Decision.SUPERSEDE
            candidate.reason = "replaces " + ", ".join(str(old.pk) for old in conflicting)
        else:
            candidate.decision, candidate.reason = Decision.ACCEPT, "new"


def store(episode: Episode, data: Prepared) -> PhaseOutcome:
    lock_user(LockNamespace.MEMORIES, episode.project_id, episode.user_id)
    journal = batch_open(episode=episode)
    reconciler = Reconciler(episode, journal)
    for candidate, vector in zip(data.candidates, data.vectors, strict=True):
        reconciler.decide(candidate, vector)
    Candidate.objects.bulk_update(data.candidates, ["decision", "reason", "memory"])
    return PhaseOutcome(counts={"journal_entries": journal.flush()})
