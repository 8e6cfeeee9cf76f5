"""``memhq_bench episode``: a data set's typical episodes, timed phase by phase in process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memhq.models import Episode, Project
from tooling.bench import long_episode
from tooling.evaluation.dataset import load_episodes

TURNS = [
    ("user", "I am rewriting our billing service in Go and I want the invoices table partitioned by month."),
    ("assistant", "Partition by range on issued_at, one partition per month, and create them a year ahead."),
    ("user", "My manager Priya wants it live before the March audit, so keep the migration reversible."),
    ("assistant", "Then write the copy step as a batched backfill you can stop and resume at any point."),
]


def write_data(folder: Path) -> Path:
    episodes = [
        {"conv_id": "c1", "episode_id": "short", "timestamp": "2026-01-05T10:00:00", "messages": TURNS[:2]},
        {"conv_id": "c1", "episode_id": "long", "timestamp": "2026-01-06T10:00:00", "messages": TURNS},
        {"conv_id": "c2", "episode_id": "middle", "timestamp": "2026-01-07T10:00:00", "messages": TURNS[:3]},
    ]
    with (folder / "episodes.jsonl").open("w") as out:
        for episode in episodes:
            messages = [
                {"msg_id": f"{episode['episode_id']}-{i}", "speaker": role, "text": text}
                for i, (role, text) in enumerate(episode.pop("messages"))
            ]
            out.write(json.dumps({**episode, "messages": messages}) + "\n")
    return folder


def test_the_median_length_episodes_are_chosen_unless_named(tmp_path: Path) -> None:
    episodes = load_episodes(write_data(tmp_path))
    assert [e.episode_id for e in long_episode.chosen(episodes, [], 2)] == ["middle", "short"]
    assert [e.episode_id for e in long_episode.chosen(episodes, ["short"], 2)] == ["short"]
    with pytest.raises(ValueError, match="unknown episode id"):
        long_episode.chosen(episodes, ["nope"], 1)


@pytest.mark.django_db(transaction=True)
def test_each_phase_and_the_embedder_are_timed_and_nothing_is_left(tmp_path: Path) -> None:
    lines: list[str] = []
    options: dict[str, Any] = {"data": write_data(tmp_path), "episodes": 1, "episode": ["long"], "warmup": 1}
    outputs = {"json": tmp_path / "out.json", "plot": tmp_path / "out.png"}
    document = long_episode.run({**options, **outputs}, lines.append)
    [timed] = document["runs"]
    assert timed["episode"] == "long" and timed["messages"] == len(TURNS)
    assert len(timed["phases_s"]) == 7 and "Index" in timed["phases_s"]
    assert 0 < timed["embedding_s"] < timed["seconds"]
    assert document["median_s"] == timed["seconds"]
    assert json.loads((tmp_path / "out.json").read_text())["runs"] == document["runs"]
    assert any("1/1" in line for line in lines)
    assert document["machine"]["usable_cpus"] >= 1 and len(document["machine"]["load_average"]) == 3
    assert any(line.startswith("MEMHQ_MODEL_HELPERS=") for line in lines)  # the figure says what it ran on
    assert (tmp_path / "out.png").read_bytes().startswith(b"\x89PNG")
    assert not Project.objects.exists() and not Episode.objects.exists()  # the bench's project is deleted
