"""Entity resolution: a mention → an existing entity (exact name/alias, typo, or embedding) or a new one.

Order (DESIGN §3, step 4): exact normalised name or alias (of the same type if there is one, else of any
type, because NER labels the same name differently from sentence to sentence) → nearest same-type entity
by embedding with cosine ≥ ENTITY_MATCH_COSINE, or by trigram similarity ≥ ENTITY_MATCH_TRIGRAM (catches
typos such as "corola hybrid" that a sentence embedder scores lower) → a new entity. Callers hold the
per-user entity lock, and the insert also tolerates a concurrent insert of the same name (ON CONFLICT DO
NOTHING + re-read).
"""

from __future__ import annotations

import functools
import re
import unicodedata
import uuid
from dataclasses import dataclass

import numpy as np
from django.contrib.postgres.search import TrigramSimilarity
from django.db import connection
from django.db.models import Q

from memhq.models import Entity
from memhq.models.vectors import vector_literal
from memhq.selectors.lateral import column, for_each
from memhq.selectors.nearest import cosine_distance, few_rows
from memhq.services.bulk import rows_update

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
    matches.sort(key=lambda entity: -entity.mention_count)  # stable: the earlier created first on a tie
    same_type = [entity for entity in matches if entity.type == type_]
    best = same_type or matches
    return best[0] if best else None


@dataclass(frozen=True)
class Mention:
    name: str
    type: str
    normalized: str
    embedding: np.ndarray | None


@dataclass
class Similar:
    """What the user's stored entities offer an unknown mention, read for all of them at once."""

    nearest: tuple[Entity, float] | None  # the nearest same-type entity by embedding, with its cosine
    trigram: tuple[Entity, float] | None  # the most trigram-similar same-type name above the threshold


def _similar_each(project_id: uuid.UUID, user_id: str, mentions: list[Mention]) -> list[Similar]:
    """Per mention, its nearest stored entity by embedding and by trigram: two statements in all."""
    scope = Entity.objects.filter(_live(project_id, user_id), type=column("type")).defer("embedding")
    with_vectors = [i for i, mention in enumerate(mentions) if mention.embedding is not None]
    nearest: dict[int, tuple[Entity, float]] = {}
    if with_vectors:
        exact = few_rows(Entity.objects.filter(project_id=project_id, user_id=user_id))
        rows = (
            scope.exclude(embedding__isnull=True)
            .annotate(distance=cosine_distance(column("vector"), exact=exact))
            .order_by("distance")[:1]
        )
        answers = for_each(
            rows,
            {
                "type": ("text", [mentions[i].type for i in with_vectors]),
                "vector": (
                    "vector",
                    [vector_literal(mentions[i].embedding) for i in with_vectors],
                ),
            },
        )
        for i, answer in zip(with_vectors, answers, strict=True):
            if answer:
                nearest[i] = (answer[0], 1.0 - float(getattr(answer[0], "distance")))  # noqa: B009
    name = column("name")
    similarity = TrigramSimilarity("normalized_name", name)  # type: ignore[arg-type]  # takes an expression
    similar = (
        scope.annotate(similarity=similarity)
        .filter(similarity__gte=ENTITY_MATCH_TRIGRAM)
        .order_by("-similarity")[:1]
    )
    trigrams = for_each(
        similar,
        {"type": ("text", [m.type for m in mentions]), "name": ("text", [m.normalized for m in mentions])},
    )
    return [
        Similar(
            nearest=nearest.get(i),
            trigram=(answer[0], float(getattr(answer[0], "similarity"))) if answer else None,  # noqa: B009
        )
        for i, answer in enumerate(trigrams)
    ]


def _trigram_pairs(names: list[str]) -> dict[tuple[str, str], float]:
    """pg_trgm's similarity of every pair of ``names`` (one statement), for names not stored yet."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT a.name, b.name, similarity(a.name, b.name)"
            " FROM unnest(%s::text[]) AS a(name), unnest(%s::text[]) AS b(name)",
            [names, names],
        )
        return {(a, b): float(similarity) for a, b, similarity in cursor.fetchall()}


class _Resolver:
    """Resolves one episode's mentions in order, as one-by-one lookups would (each seeing the entities the
    earlier ones created or renamed), with a fixed number of statements: the stored candidates are read
    up front, the new entities are compared in memory, and every write is made at the end."""

    def __init__(self, project_id: uuid.UUID, user_id: str, known: list[Entity]) -> None:
        self.project_id, self.user_id = project_id, user_id
        self.pool: dict[uuid.UUID, Entity] = {entity.pk: entity for entity in known}
        self.created: list[Entity] = []
        self.vectors: dict[uuid.UUID, np.ndarray] = {}
        self.counted: set[uuid.UUID] = set()
        self.new_names: list[str] = []  # the names that were not known: those new entities may take

    def exact(self, mention: Mention) -> Entity | None:
        return best_exact(list(self.pool.values()), mention.normalized, mention.type)

    def similar(self, mention: Mention, stored: Similar) -> Entity | None:
        """The nearest same-type entity by embedding (cosine ≥ ENTITY_MATCH_COSINE), else by trigram
        (≥ ENTITY_MATCH_TRIGRAM): the stored ones as read up front, or one created in this pass."""
        own = [entity for entity in self.created if entity.type == mention.type]
        if mention.embedding is not None:
            options = [stored.nearest] if stored.nearest else []
            options += [
                (e, float(np.dot(self.vectors[e.pk], mention.embedding))) for e in own if e.pk in self.vectors
            ]
            best = max(options, key=lambda option: option[1], default=None)
            if best is not None and best[1] >= ENTITY_MATCH_COSINE:
                return self.pool.setdefault(best[0].pk, best[0])
        options = [stored.trigram] if stored.trigram else []
        if own:
            options += [(e, self.pairs[(e.normalized_name, mention.normalized)]) for e in own]
        best = max(options, key=lambda option: option[1], default=None)
        if best is not None and best[1] >= ENTITY_MATCH_TRIGRAM:
            return self.pool.setdefault(best[0].pk, best[0])
        return None

    @functools.cached_property
    def pairs(self) -> dict[tuple[str, str], float]:
        """Trigram similarities among the names that may become new entities (read once, when needed)."""
        return _trigram_pairs(self.new_names)

    def create(self, mention: Mention) -> Entity:
        entity = Entity(
            project_id=self.project_id,
            user_id=self.user_id,
            name=mention.name,
            normalized_name=mention.normalized,
            type=mention.type,
            embedding=mention.embedding,
        )
        self.created.append(entity)
        self.pool[entity.pk] = entity
        if mention.embedding is not None:
            self.vectors[entity.pk] = mention.embedding
        return entity

    def count(self, entity: Entity, mention: Mention) -> None:
        """Count the mention and keep its surface form as an alias when it is a new name."""
        entity.mention_count += 1
        new_name = (
            mention.normalized != entity.normalized_name
            and mention.normalized not in entity.normalized_aliases
        )
        if new_name and len(entity.aliases) < MAX_ALIASES:
            entity.aliases = [*entity.aliases, mention.name]
            entity.normalized_aliases = [*entity.normalized_aliases, mention.normalized]
        self.counted.add(entity.pk)

    def write(self) -> dict[uuid.UUID, Entity]:
        """Insert the new entities and write the counts and aliases of the others; returns the entity each
        pooled id ended as (a new name that another writer inserted meanwhile ends as that row)."""
        final = dict(self.pool)
        new = {entity.pk for entity in self.created}
        changed = [self.pool[pk] for pk in self.counted if pk not in new]
        for entity, row in self._insert():
            row.mention_count += entity.mention_count
            final[entity.pk] = row
            changed.append(row)
        rows_update(changed, ["mention_count", "aliases", "normalized_aliases"])
        return final

    def _insert(self) -> list[tuple[Entity, Entity]]:
        """Insert the new entities in one statement; those whose name was taken meanwhile (the unique name
        per type also holds merged entities), paired with the row that has it."""
        if not self.created:
            return []
        Entity.objects.bulk_create(self.created, ignore_conflicts=True)
        names = Q()
        for entity in self.created:
            names |= Q(type=entity.type, normalized_name=entity.normalized_name)
        rows = Entity.objects.filter(names, project_id=self.project_id, user_id=self.user_id).defer(
            "embedding"
        )
        stored = {(row.type, row.normalized_name): row for row in rows}
        taken = ((entity, stored[(entity.type, entity.normalized_name)]) for entity in self.created)
        return [(entity, row) for entity, row in taken if row.pk != entity.pk]


def entities_resolve(
    *, project_id: uuid.UUID, user_id: str, mentions: list[tuple[str, str]], embeddings: dict[str, np.ndarray]
) -> dict[tuple[str, str], Entity]:
    """Resolve ``(name, type)`` mentions, each to an existing entity (exact name or alias, then similar) or
    a new one; records each surface form as an alias and counts the mentions.

    In order, as one-by-one resolution would, with a fixed number of statements however many mentions:
    the names an entity already carries first (most mentions, once a user has talked for a while), then
    the others, each seeing what the earlier ones created or renamed.
    """
    keys = list(dict.fromkeys(mentions))
    resolver_mentions = {
        key: Mention(key[0], key[1], normalize_name(key[0]) or key[0].casefold(), embeddings.get(key[0]))
        for key in keys
    }
    known = _named(project_id, user_id, sorted({m.normalized for m in resolver_mentions.values()}))
    resolver = _Resolver(project_id, user_id, known)
    resolved: dict[tuple[str, str], Entity] = {}
    for key, mention in resolver_mentions.items():
        entity = resolver.exact(mention)
        if entity is not None:
            resolver.count(entity, mention)  # an exact name is never a new alias
            resolved[key] = entity
    unknown = [key for key in keys if key not in resolved]
    resolver.new_names = sorted({resolver_mentions[key].normalized for key in unknown})
    stored = (
        _similar_each(project_id, user_id, [resolver_mentions[key] for key in unknown]) if unknown else []
    )
    for key, similar in zip(unknown, stored, strict=True):
        mention = resolver_mentions[key]
        entity = resolver.exact(mention) or resolver.similar(mention, similar) or resolver.create(mention)
        resolver.count(entity, mention)
        resolved[key] = entity
    final = resolver.write()
    return {key: final[entity.pk] for key, entity in resolved.items()}


def entity_resolve(
    *, project_id: uuid.UUID, user_id: str, name: str, type_: str, embedding: np.ndarray | None
) -> Entity:
    """Resolve one mention (:func:`entities_resolve`)."""
    embeddings = {name: embedding} if embedding is not None else {}
    found = entities_resolve(
        project_id=project_id, user_id=user_id, mentions=[(name, type_)], embeddings=embeddings
    )
    return found[(name, type_)]


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
