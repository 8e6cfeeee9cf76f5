"""Everything MemHQ holds about one user of a project, for the admin's per-user page (newest first,
bounded)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count

from memhq.models import Batch, Entity, Episode, Memory, MemoryStatus, Project, Thread

#: Rows listed per section (the counts are always complete).
MAX_ROWS = 50


@dataclass
class UserOverview:
    project: Project
    user_id: str
    memory_counts: dict[str, int]
    memories: dict[str, list[Memory]] = field(default_factory=dict)
    entities: list[Entity] = field(default_factory=list)
    episodes: list[Episode] = field(default_factory=list)
    threads: list[Thread] = field(default_factory=list)
    batches: list[Batch] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


def user_overview(*, project: Project, user_id: str) -> UserOverview:
    scope: dict[str, Any] = {"project": project, "user_id": user_id}
    memories = Memory.objects.filter(**scope).defer("embedding")
    by_status = dict(memories.values_list("status").annotate(n=Count("pk")).values_list("status", "n"))
    overview = UserOverview(
        project=project,
        user_id=user_id,
        memory_counts={status: by_status.get(status, 0) for status in MemoryStatus.values},
    )
    for status in (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED, MemoryStatus.DISABLED):
        overview.memories[status] = list(memories.filter(status=status).order_by("-recorded_at")[:MAX_ROWS])
    entities = Entity.objects.filter(**scope, merged_into__isnull=True).defer("embedding")
    overview.entities = list(entities.order_by("-mention_count", "name")[:MAX_ROWS])
    episodes = Episode.objects.filter(**scope).defer("raw_body", "summary_embedding", "key_learnings")
    overview.episodes = list(episodes.order_by("-received_at")[:MAX_ROWS])
    threads = Thread.objects.filter(**scope)
    overview.threads = list(threads.order_by("-last_activity_at")[:MAX_ROWS])
    batches = Batch.objects.filter(**scope)
    overview.batches = list(batches.order_by("-created_at")[:MAX_ROWS])
    overview.counts = {
        "entities": entities.count(),
        "episodes": episodes.count(),
        "threads": threads.count(),
        "batches": batches.count(),
    }
    return overview
