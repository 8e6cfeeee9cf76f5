"""A user's memory as a graph, for a graph view: entities (and the user, and plain values) as nodes, live
memories as edges. The user's own entity (the names the user goes by, as aliases) is the user node, so a
user called Maria is one node, not "user" and "Maria".

- Edges: memories live at ``as_of`` (default now) — active or superseded, valid then (the same rule as
  recall; disabled and deleted never appear) — from their subject (its entity, or the user node when the
  subject is the user) to their object (its entity, or a value node holding the object text). Memories
  with neither end resolvable (no subject entity about someone else, or no object) are left out.
- Bounded and deterministic: at most ``MEMHQ_GRAPH_MAX_EDGES`` edges, most important first (then newest,
  then id); then at most ``MEMHQ_GRAPH_MAX_NODES`` nodes: the ends of the kept edges first (an edge whose
  ends do not fit is dropped), then the user's other entities, most mentioned first. ``truncated`` says
  whether anything was left out by the bounds.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.utils import timezone

from ingestion.extractors.base import USER_SUBJECT
from memhq.models import Entity, Memory, MemoryStatus, Project
from memhq.selectors.memories import valid_at
from memhq.services.entities import is_user_entity, user_entity_find

USER_NODE = "user"
MAX_MERGE_HOPS = 10


@dataclass
class Graph:
    nodes: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False
    as_of: datetime | None = None


def _canonical(entities: dict[uuid.UUID, Entity], entity_id: uuid.UUID | None) -> Entity | None:
    entity = entities.get(entity_id) if entity_id else None
    for _ in range(MAX_MERGE_HOPS):
        if entity is None or entity.merged_into_id is None:
            break
        entity = entities.get(entity.merged_into_id)
    return entity


def _user_node(aliases: list[str]) -> dict[str, Any]:
    return {"id": USER_NODE, "kind": "user", "label": "user", "type": None, "aliases": aliases}


def _entity_node(entity: Entity) -> dict[str, Any]:
    if is_user_entity(entity):  # the user's own entity (their names as aliases) is the user node
        return _user_node(list(entity.aliases))
    return {
        "id": str(entity.pk),
        "kind": "entity",
        "label": entity.name,
        "type": entity.type,
        "aliases": list(entity.aliases),
        "mention_count": entity.mention_count,
    }


def _value_node(text: str) -> dict[str, Any]:
    return {"id": f"value:{text.casefold()}", "kind": "value", "label": text, "type": None}


def _ends(
    memory: Memory, entities: dict[uuid.UUID, Entity], user_aliases: list[str]
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    subject = _canonical(entities, memory.subject_entity_id)
    if subject is not None:
        source = _entity_node(subject)
    elif memory.subject.casefold() == USER_SUBJECT:
        source = _user_node(user_aliases)
    else:
        return None
    target_entity = _canonical(entities, memory.object_entity_id)
    if target_entity is not None:
        return source, _entity_node(target_entity)
    if memory.object_value.strip():
        return source, _value_node(memory.object_value.strip())
    return None


def _referenced_entities(project: Project, user_id: str, memories: list[Memory]) -> dict[uuid.UUID, Entity]:
    """The entities the memories point at, and the entities those were merged into (a few hops)."""
    scope = Entity.objects.filter(project=project, user_id=user_id).defer("embedding")
    wanted = {m.subject_entity_id for m in memories} | {m.object_entity_id for m in memories}
    entities: dict[uuid.UUID, Entity] = {}
    for _ in range(MAX_MERGE_HOPS):
        missing = [entity_id for entity_id in wanted if entity_id is not None and entity_id not in entities]
        if not missing:
            break
        found = {entity.pk: entity for entity in scope.filter(pk__in=missing)}
        entities.update(found)
        wanted = {entity.merged_into_id for entity in found.values()}
    return entities


def user_graph(*, project: Project, user_id: str, as_of: datetime | None = None) -> Graph:
    as_of = as_of or timezone.now()
    max_edges, max_nodes = settings.MEMHQ_GRAPH_MAX_EDGES, settings.MEMHQ_GRAPH_MAX_NODES
    memories = list(
        Memory.objects.filter(project=project, user_id=user_id)
        .filter(status__in=(MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED))
        .filter(valid_at(as_of))
        .defer("embedding")
        .order_by("-importance", "-valid_from", "id")[: max_edges + 1]
    )
    truncated = len(memories) > max_edges
    memories = memories[:max_edges]
    entities = _referenced_entities(project, user_id, memories)
    user_entity = user_entity_find(project.pk, user_id)
    user_aliases = list(user_entity.aliases) if user_entity is not None else []
    nodes: dict[str, dict[str, Any]] = {}
    graph = Graph(as_of=as_of)
    for memory in memories:
        ends = _ends(memory, entities, user_aliases)
        if ends is None:
            continue
        new = {end["id"]: end for end in ends if end["id"] not in nodes}
        if len(nodes) + len(new) > max_nodes:
            truncated = True
            continue
        nodes.update(new)
        graph.edges.append(
            {
                "id": str(memory.pk),
                "source": ends[0]["id"],
                "target": ends[1]["id"],
                "predicate": memory.predicate,
                "text": memory.text,
                "kind": memory.kind,
                "status": memory.status,
                "importance": memory.importance,
                "valid_from": memory.valid_from,
                "valid_until": memory.valid_until,
            }
        )
    room = max_nodes - len(nodes)
    others = list(
        Entity.objects.filter(project=project, user_id=user_id, merged_into__isnull=True)
        .exclude(pk__in=[key for key in nodes if key != USER_NODE and not key.startswith("value:")])
        .defer("embedding")
        .order_by("-mention_count", "normalized_name", "id")[: max(room, 0) + 1]
    )
    truncated = truncated or len(others) > room
    for entity in others[: max(room, 0)]:
        node = _entity_node(entity)
        nodes.setdefault(node["id"], node)
    order = {"user": 0, "entity": 1, "value": 2}
    graph.nodes = sorted(
        nodes.values(),
        key=lambda node: (order[node["kind"]], -node.get("mention_count", 0), node["label"], node["id"]),
    )
    graph.truncated = truncated
    return graph
