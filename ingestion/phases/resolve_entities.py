"""Phase 4 — every mention of every candidate becomes an entity id (existing or new).

The candidate's subject, when it is a named person rather than the user, is resolved as a person mention too.
Names are embedded in ``compute`` (outside the transaction); resolution runs under the per-user entity lock
so concurrent episodes naming the same new entity end with one entity.

The user is one person, whatever they are called (issue 13, item 3). A name is the user's own when

* the episode is a person talking with an assistant (it has an ``assistant`` message) and its ``user``
  messages carry exactly one name ("Maria" on every user turn), or
* the user says so: a ``name`` candidate about the user ("I'm Maria", "my name is Maria"), or
* a ``user`` message's name is already one of the user's names (learned in an earlier episode).

Two named people talking with no assistant (the LoCoMo shape) are two people: neither becomes the user.
For a name of the user, every candidate whose subject is that name gets the subject ``user`` (the claim
text keeps the name: "Maria joined Anthropic."), so reconcile compares the user's memories with one
another whatever name they were said under; every mention of that name resolves to the user's entity
(``memhq.services.entities.user_entity_alias_add``: one node, the names as aliases), with the role
``other`` so the memory's subject stays the user rather than an entity of the same name.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db.models import Q

from ingestion.extractors.base import USER_SUBJECT
from ingestion.runner import PhaseOutcome
from memhq.ai.provider import get_embedder
from memhq.models import Candidate, Entity, Episode, EpisodeMessage
from memhq.services.bulk import rows_update
from memhq.services.entities import (
    entities_resolve,
    normalize_name,
    user_entity_alias_add,
    user_entity_find,
)
from memhq.services.locks import LockNamespace, lock_user

#: The predicate of "the subject's own name" (``ingestion/extractors/predicates.py``).
NAME_PREDICATE = "name"


@dataclass
class Resolution:
    candidates: list[Candidate]
    vectors: dict[str, np.ndarray]  # mention name → embedding
    user_names: dict[str, str]  # normalised → as written: the names that are the user's own


def user_names_of(episode: Episode, candidates: list[Candidate]) -> dict[str, str]:
    """The names the user goes by in this episode (normalised → as written); see the module docstring."""
    rows = EpisodeMessage.objects.filter(episode=episode).values_list("role", "name")
    speaker_names = {name.strip() for role, name in rows if role == "user" and name and name.strip()}
    with_assistant = any(role == "assistant" for role, _ in rows)
    names: dict[str, str] = {}
    if with_assistant and len(speaker_names) == 1:
        name = next(iter(speaker_names))
        names[normalize_name(name)] = name
    user = user_entity_find(episode.project_id, episode.user_id)
    known = set(user.normalized_aliases) if user is not None else set()
    names.update({normalize_name(n): n for n in speaker_names if normalize_name(n) in known})
    for candidate in candidates:
        subject = normalize_name(candidate.subject)
        about_user = candidate.subject.casefold() == USER_SUBJECT or subject in names
        if about_user and candidate.predicate == NAME_PREDICATE and candidate.object_value.strip():
            names.setdefault(normalize_name(candidate.object_value), candidate.object_value.strip())
    return {key: value for key, value in names.items() if key and key != USER_SUBJECT}


def as_user(candidate: Candidate, user_names: dict[str, str]) -> None:
    """The candidate's subject becomes ``user`` when it is one of the user's names."""
    if normalize_name(candidate.subject) in user_names:
        candidate.subject = USER_SUBJECT


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
    user_names = user_names_of(episode, candidates)
    for candidate in candidates:
        as_user(candidate, user_names)
        candidate.mentions = mentions_of(candidate)
    names = {
        mention["name"]
        for candidate in candidates
        for mention in candidate.mentions
        if normalize_name(mention["name"]) not in user_names
    }
    known = known_names(episode, {normalize_name(name) for name in names})
    unknown = sorted(name for name in names if normalize_name(name) not in known)
    vectors = get_embedder().embed(unknown) if unknown else np.zeros((0, 0), dtype=np.float32)
    return Resolution(
        candidates=candidates, vectors=dict(zip(unknown, vectors, strict=True)), user_names=user_names
    )


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
    user_entity_id = ""
    for name in data.user_names.values():
        user = user_entity_alias_add(project_id=episode.project_id, user_id=episode.user_id, name=name)
        user_entity_id = str(user.pk)

    def is_users(mention: dict[str, str]) -> bool:
        return bool(user_entity_id) and normalize_name(mention["name"]) in data.user_names

    resolved = entities_resolve(
        project_id=episode.project_id,
        user_id=episode.user_id,
        mentions=[
            (mention["name"], mention["type"])
            for candidate in data.candidates
            for mention in candidate.mentions
            if not is_users(mention)
        ],
        embeddings=data.vectors,
    )
    for candidate in data.candidates:
        for mention in candidate.mentions:
            if is_users(mention):
                mention["entity_id"], mention["role"] = user_entity_id, "other"
            else:
                mention["entity_id"] = str(resolved[(mention["name"], mention["type"])].pk)
        candidate.entity_ids = [mention["entity_id"] for mention in candidate.mentions]
    rows_update(data.candidates, ["subject", "mentions", "entity_ids"])
    return PhaseOutcome(counts={"entities": len({entity.pk for entity in resolved.values()})})
