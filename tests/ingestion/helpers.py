"""Creating episodes the way /add does, for phase tests."""

from __future__ import annotations

import json
from typing import Any

from memhq.models import Episode, Project
from memhq.services.episodes import episode_create


def make_episode(
    project: Project, messages: list[dict[str, Any]], user_id: str = "u1", **extra: Any
) -> Episode:
    raw = json.dumps({"user_id": user_id, "messages": messages, **extra}).encode()
    return episode_create(project=project, user_id=user_id, raw_body=raw).episode
