"""Creating episodes the way /add does, for phase tests."""

from __future__ import annotations

import json
from typing import Any

from ingestion.tasks import PHASE_TASKS
from memhq.models import Episode, Project
from memhq.services.episodes import episode_create


def make_episode(
    project: Project, messages: list[dict[str, Any]], user_id: str = "u1", **extra: Any
) -> Episode:
    raw = json.dumps({"user_id": user_id, "messages": messages, **extra}).encode()
    return episode_create(project=project, user_id=user_id, raw_body=raw).episode


def run_tasks(episode: Episode, times: int = 1) -> Episode:
    """Run the seven phase tasks in order in this process (Celery's eager ``apply``), each ``times`` times."""
    for task in PHASE_TASKS.values():
        for _ in range(times):
            task.apply(args=[str(episode.pk)])
    episode.refresh_from_db()
    return episode
