"""Phase 4 — every mention of every candidate becomes an entity id (existing or new).

The candidate's subject, when it is a named person rather than the user, is resolved as a person mention too.
Names are embedded in ``compute`` (outside the transaction); resolution runs under the per-user entity lock
so concurrent episodes naming the same new entity end with one entity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db.models import Q

from ingestion.extractors.base import USER_SUBJECT
from ingestion.runner import PhaseOutcome
from memhq.ai.provider import get_embedder
from memhq.models import Candidate, Entity, Episode
from memhq.services.entities import entity_resolve, normalize_name
from memhq.services.locks import LockNamespace, lock_user


@dataclass
class Resolution:
    candidates: list[Candidate]
    vectors: dict[str, np.ndarray]  # mention name → embedding


def mentions_of(candidate: Candidate) -> list[dict[str, str]]:
    mentions = [dict(mention) for mention in candidate.mentions]
    subject = candidate.subject.strip()
    if (
        subject
        and subject.casefold() != USER_SUBJECT
        and not any(mention["name"].casefold() == subject.casefold() for mention in mentions)
    ):
        mentions.insert(0, {"name": subject, "type": "person", "role": "subject"})
    return mentions


def compute(episode: Episode) -> Resolution:
    """Embed only the names that no entity of the user carries yet: the others resolve by exact match."""
    candidates = list(Candidate.objects.filter(episode=episode).order_by("ordinal"))
    for candidate in candidates:
        candidate.mentions = mentions_of(candidate)
    names = {mention["name"] for candidate in candidates for mention in candidate.mentions}
    known = known_names(episode, {normalize_name(name) for name in names})
    unknown = sorted(name for name in names if normalize_name(name) not in known)
    vectors = get_embedder().embed(unknown) if unknown else np.zeros((0, 0), dtype=np.float32)
    return Resolution(candidates=candidates, vectors=dict(zip(unknown, vectors, strict=True)))


def known_names(episode: Episode, normalized: set[str]) -> set[str]:
    rows = Entity.objects.filter(
        Q(normalized_name__in=normalized) | Q(normalized_aliases__overlap=list(normalized)),
        project_id=episode.project_id,
        user_id=episode.user_id,
        merged_into__isnull=True,
    ).values_list("normalized_name", "normalized_aliases")
    return {name for row_name, aliases in rows for name in (row_name, *aliases)} & normalized


def store(episode: Episode, data: Resolution) -> PhaseOutcome:
    lock_user(LockNamespace.ENTITIES, episode.project_id, episode.user_id)
    resolved: dict[tuple[str, str], str] = {}
    for candidate in data.candidates:
        for mention in candidate.mentions:
            key = (mention["name"], mention["type"])
            if key not in resolved:
                entity = entity_resolve(
                    project_id=episode.project_id,
                    user_id=episode.user_id,
                    name=mention["name"],
                    type_=mention["type"],
                    embedding=data.vectors.get(mention["name"]),
                )
                resolved[key] = str(entity.pk)
            mention["entity_id"] = resolved[key]
        candidate.entity_ids = [mention["entity_id"] for mention in candidate.mentions]
    Candidate.objects.bulk_update(data.candidates, ["mentions", "entity_ids"])
    return PhaseOutcome(counts={"entities": len(set(resolved.values()))})
