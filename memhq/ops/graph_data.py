"""What the graph page draws: ``GET /graph``'s nodes and edges (memhq.selectors.graph, same bounds), each
edge with its memory's evidence, and the span of time the ``as_of`` control can move over."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from django.db.models import Max, Min
from django.utils import timezone

from memhq.api.control_serializers import GraphSerializer
from memhq.models import Evidence, Memory, MemoryStatus, Project
from memhq.selectors.graph import user_graph

#: Evidence quotes shown per memory (its newest first).
MAX_EVIDENCE_PER_EDGE = 5


def _evidence(memory_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    by_memory: dict[str, list[dict[str, Any]]] = defaultdict(list)
    rows = Evidence.objects.filter(memory_id__in=memory_ids).order_by("memory_id", "-created_at")
    for row in rows.values("memory_id", "quote", "episode_id", "caller_message_ids", "created_at"):
        quotes = by_memory[str(row["memory_id"])]
        if len(quotes) < MAX_EVIDENCE_PER_EDGE:
            quotes.append(
                {
                    "quote": row["quote"],
                    "episode_id": str(row["episode_id"]) if row["episode_id"] else None,
                    "message_ids": list(row["caller_message_ids"]),
                    "at": row["created_at"].isoformat(),
                }
            )
    return by_memory


def time_span(*, project: Project, user_id: str) -> dict[str, datetime | None]:
    span = (
        Memory.objects.filter(project=project, user_id=user_id)
        .filter(status__in=(MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED))
        .aggregate(first=Min("valid_from"), last=Max("valid_from"))
    )
    return {"first": span["first"], "last": max(filter(None, [span["last"], timezone.now()]))}


def graph_page_data(*, project: Project, user_id: str, as_of: datetime | None) -> dict[str, Any]:
    graph = user_graph(project=project, user_id=user_id, as_of=as_of)
    data = dict(GraphSerializer(graph).data)
    evidence = _evidence([edge["id"] for edge in graph.edges])
    for edge in data["edges"]:
        edge["evidence"] = evidence.get(edge["id"], [])
    span = time_span(project=project, user_id=user_id)
    data["user_id"] = user_id
    data["time_span"] = {name: value.isoformat() if value else None for name, value in span.items()}
    return data
