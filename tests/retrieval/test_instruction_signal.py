"""The instruction signal: a user's standing instructions nearest to the query, searched on their own, so an
instruction stated once is in the context of a later request on its topic however the request is worded."""

from __future__ import annotations

from rest_framework.test import APIClient

from ingestion.pipeline import run_inline
from memhq.models import Memory, Project
from tests.ingestion.helpers import make_episode

FACTS = [
    "I run nginx on a small VPS in Frankfurt.",
    "My VPS has a 20 GB disk.",
    "I use Ubuntu 24.04 on all my servers.",
    "I deploy my blog with a git hook.",
    "My blog gets about 3,000 visits a month.",
    "I moved my DNS to a new provider last month.",
]


def recall(api: APIClient, user: str, query: str) -> list[dict[str, object]]:
    response = api.post("/v1/memhq/recall", {"user_id": user, "query": query}, "json")
    assert response.status_code == 200
    return list(response.json()["items"])


def test_a_standing_instruction_is_found_by_its_own_signal_among_many_facts(
    project: Project, api: APIClient
) -> None:
    instruction = [
        {"role": "user", "content": "Always give me a one-line shell command when I ask about logs."}
    ]
    run_inline(make_episode(project, instruction, "ines", timestamp="2026-01-05T09:00:00Z").pk)
    for day, fact in enumerate(FACTS, start=6):
        turns = [{"role": "user", "content": fact}, {"role": "assistant", "content": "Noted."}]
        run_inline(make_episode(project, turns, "ines", timestamp=f"2026-01-{day:02d}T09:00:00Z").pk)
    assert Memory.objects.filter(predicate="instructs_assistant").count() == 1
    items = recall(api, "ines", "nginx keeps filling my VPS disk, how do I clean it up?")
    found = [item for item in items if "one-line shell command" in str(item["text"])]
    assert found, [item["text"] for item in items]
    assert "instruction" in found[0]["ranks"]  # type: ignore[operator]


def test_other_users_instructions_and_plain_facts_are_not_instruction_hits(
    project: Project, api: APIClient
) -> None:
    theirs = [{"role": "user", "content": "Always answer me in Portuguese when I ask about recipes."}]
    run_inline(make_episode(project, theirs, "other", timestamp="2026-01-05T09:00:00Z").pk)
    mine = [{"role": "user", "content": "I bake sourdough every weekend."}]
    run_inline(make_episode(project, mine, "me", timestamp="2026-01-05T09:00:00Z").pk)
    items = recall(api, "me", "Any recipes for a weekend bake?")
    assert not any("Portuguese" in str(item["text"]) for item in items)
    assert not any("instruction" in item["ranks"] for item in items)  # type: ignore[operator]
