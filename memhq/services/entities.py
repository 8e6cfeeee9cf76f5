"""Entity resolution: a mention → an existing entity (exact name/alias, typo, or embedding) or a new one.

Order (DESIGN §3, step 4): exact normalised name or alias (of the same type if there is one, else of any
type, because NER labels the same name differently from sentence to sentence) → nearest same-type entity
by embedding with cosine ≥ ENTITY_MATCH_COSINE, or by trigram similarity ≥ ENTITY_MATCH_TRIGRAM (catches
typos such as "corola hybrid" that a sentence embedder scores lower) → a new entity. Callers hold the
per-user entity lock, and the insert also tolerates a concurrent insert of the same name (ON CONFLICT DO
NOTHING + re-read).
"""

from __future__ import annotations

import re
import unicodedata
import uuid

import numpy as np
from django.contrib.postgres.search import TrigramSimilarity
from django.db.models import Q

from memhq.models import Entity
from memhq.selectors.nearest import cosine_distance, few_rows

ENTITY_MATCH_COSINE = 0.88
ENTITY_MATCH_TRIGRAM = 0.6
MAX_ALIASES = 50

_ARTICLES = re.compile(r"^(the|a|an)\s+")
_NON_WORD = re.compile(r"[^\w\s$€£%.-]+")
_SPACES = re.compile(r"\s+")


def normalize_name(name: str) -> str:
    """Case-folded, accent-stripped, article-less, single-spaced: the key for exact matching."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode() or name
    text = _NON_WORD.sub(" ", text.casefold())
    text = _SPACES.sub(" ", text).strip(" .-")
    return _ARTICLES.sub("", text)


def _live(project_id: uuid.UUID, user_id: str) -> Q:
    return Q(project_id=project_id, user_id=user_id, merged_into__isnull=True)


def find_exact(project_id: uuid.UUID, user_id: str, normalized: str, type_: str) -> Entity | None:
    return best_exact(_named(project_id, user_id, [normalized]), normalized, type_)


def _named(project_id: uuid.UUID, user_id: str, normalized: list[str]) -> list[Entity]:
    """The user's live entities called (by name or alias) any of ``normalized``."""
    return list(
        Entity.objects.filter(_live(project_id, user_id))
        .filter(Q(normalized_name__in=normalized) | Q(normalized_aliases__overlap=normalized))
        .defer("embedding")
        .order_by("-mention_count", "created_at")
    )


def best_exact(entities: list[Entity], normalized: str, type_: str) -> Entity | None:
    """Of ``entities``, the one called ``normalized``: of the same type if there is one, else of any type;
    the most mentioned first."""
    matches = [e for e in entities if normalized == e.normalized_name or normalized in e.normalized_aliases]
    same_type = [entity for entity in matches if entity.type == type_]
    best = same_type or matches
    return best[0] if best else None


def find_similar(
    project_id: uuid.UUID, user_id: str, normalized: str, type_: str, embedding: np.ndarray | None
) -> Entity | None:
    scope = Entity.objects.filter(_live(project_id, user_id), type=type_).defer("embedding")
    if embedding is not None:
        exact = few_rows(Entity.objects.filter(project_id=project_id, user_id=user_id))
        nearest = (
            scope.exclude(embedding__isnull=True)
            .annotate(distance=cosine_distance(embedding, exact=exact))
            .order_by("distance")
            .first()
        )
        if nearest is not None and 1.0 - float(nearest.distance) >= ENTITY_MATCH_COSINE:
            return nearest
    return (
        scope.annotate(similarity=TrigramSimilarity("normalized_name", normalized))
        .filter(similarity__gte=ENTITY_MATCH_TRIGRAM)
        .order_by("-similarity")
        .first()
    )


def entity_resolve(
    *, project_id: uuid.UUID, user_id: str, name: str, type_: str, embedding: np.ndarray | None
) -> Entity:
    """Resolve one mention; records the surface form as an alias and counts the mention."""
    normalized = normalize_name(name) or name.casefold()
    entity = find_exact(project_id, user_id, normalized, type_) or find_similar(
        project_id, user_id, normalized, type_, embedding
    )
    if entity is None:
        Entity.objects.bulk_create(
            [
                Entity(
                    project_id=project_id,
                    user_id=user_id,
                    name=name,
                    normalized_name=normalized,
                    type=type_,
                    embedding=embedding,
                )
            ],
            ignore_conflicts=True,
        )
        entity = Entity.objects.defer("embedding").get(
            project_id=project_id, user_id=user_id, type=type_, normalized_name=normalized
        )
    updates: dict[str, object] = {"mention_count": entity.mention_count + 1}
    is_new_alias = normalized != entity.normalized_name and normalized not in entity.normalized_aliases
    if is_new_alias and len(entity.aliases) < MAX_ALIASES:
        updates["aliases"] = [*entity.aliases, name]
        updates["normalized_aliases"] = [*entity.normalized_aliases, normalized]
    Entity.objects.filter(pk=entity.pk).update(**updates)
    for field, value in updates.items():
        setattr(entity, field, value)
    return entity


def entities_resolve(
    *, project_id: uuid.UUID, user_id: str, mentions: list[tuple[str, str]], embeddings: dict[str, np.ndarray]
) -> dict[tuple[str, str], Entity]:
    """Resolve many ``(name, type)`` mentions at once, as :func:`entity_resolve` would one by one.

    The names an entity already carries (most mentions, once a user has talked for a while) resolve with one
    SELECT and one bulk UPDATE of their mention counts; only the others go through the one-by-one path
    (similar names, new entities), in order, after those counts are written.
    """
    keys = list(dict.fromkeys(mentions))
    normalized = {key: normalize_name(key[0]) or key[0].casefold() for key in keys}
    known = _named(project_id, user_id, sorted(set(normalized.values())))
    resolved: dict[tuple[str, str], Entity] = {}
    counted: dict[uuid.UUID, Entity] = {}
    for key in keys:
        entity = best_exact(known, normalized[key], key[1])
        if entity is not None:
            entity.mention_count += 1  # an exact name is never a new alias
            resolved[key] = counted[entity.pk] = entity
    Entity.objects.bulk_update(list(counted.values()), ["mention_count"])
    for key in keys:
        if key not in resolved:
            resolved[key] = entity_resolve(
                project_id=project_id,
                user_id=user_id,
                name=key[0],
                type_=key[1],
                embedding=embeddings.get(key[0]),
            )
    return resolved


# -- the user's own entity -----------------------------------------------------------------------------------
#
# The person whose memory it is has one entity, named USER_SUBJECT ("user"), type person, whose aliases are
# the names the user goes by ("Maria"). Memories about the user keep the subject "user" (so supersession
# compares like with like whatever name the user was called by), and every mention of one of the user's
# names resolves to this entity, never to a second "Maria" node. Created the first time a name of the user
# is learned (see ingestion/phases/resolve_entities.py for when a name is the user's).

USER_ENTITY_NAME = "user"
USER_ENTITY_TYPE = "person"


def is_user_entity(entity: Entity) -> bool:
    return entity.normalized_name == USER_ENTITY_NAME and entity.type == USER_ENTITY_TYPE


def user_entity_find(project_id: uuid.UUID, user_id: str) -> Entity | None:
    return (
        Entity.objects.filter(
            _live(project_id, user_id), normalized_name=USER_ENTITY_NAME, type=USER_ENTITY_TYPE
        )
        .defer("embedding")
        .first()
    )


def user_entity_alias_add(*, project_id: uuid.UUID, user_id: str, name: str) -> Entity:
    """The user's entity (created if missing) with ``name`` among its aliases.

    A separate live person entity already carrying that name (met before the name was known to be the
    user's) is merged into the user's entity: ``merged_into`` set, its names added as aliases, its mention
    count added. Memories keep pointing at it; readers follow ``merged_into`` (as for every merge).
    """
    normalized = normalize_name(name) or name.casefold()
    Entity.objects.bulk_create(
        [
            Entity(
                project_id=project_id,
                user_id=user_id,
                name=USER_ENTITY_NAME,
                normalized_name=USER_ENTITY_NAME,
                type=USER_ENTITY_TYPE,
            )
        ],
        ignore_conflicts=True,
    )
    user = Entity.objects.defer("embedding").get(
        project_id=project_id, user_id=user_id, normalized_name=USER_ENTITY_NAME, type=USER_ENTITY_TYPE
    )
    aliases, normalized_aliases = list(user.aliases), list(user.normalized_aliases)
    mentions = user.mention_count
    twins = (
        Entity.objects.filter(_live(project_id, user_id), type=USER_ENTITY_TYPE)
        .filter(Q(normalized_name=normalized) | Q(normalized_aliases__contains=[normalized]))
        .exclude(pk=user.pk)
        .defer("embedding")
    )
    for twin in twins:
        names = [twin.name, *twin.aliases]
        keys = [twin.normalized_name, *twin.normalized_aliases]
        for alias, key in zip(names, keys, strict=False):
            if key not in normalized_aliases and key != USER_ENTITY_NAME:
                aliases.append(alias)
                normalized_aliases.append(key)
        mentions += twin.mention_count
        Entity.objects.filter(pk=twin.pk).update(merged_into=user)
    if normalized not in normalized_aliases and normalized != USER_ENTITY_NAME:
        aliases.append(name)
        normalized_aliases.append(normalized)
    aliases, normalized_aliases = aliases[:MAX_ALIASES], normalized_aliases[:MAX_ALIASES]
    Entity.objects.filter(pk=user.pk).update(
        aliases=aliases, normalized_aliases=normalized_aliases, mention_count=mentions
    )
    user.aliases, user.normalized_aliases, user.mention_count = aliases, normalized_aliases, mentions
    return user
