"""``memhq_bench episode``: the seven phases of a data set's typical episodes, in one process, phase by phase.

Reads a data set in the evaluation format (``--data DIR``: its ``episodes.jsonl``, read by path, never
copied) and takes the ``--episodes`` sessions whose message counts are nearest the data set's median, so the
figure is a typical episode's (or those named by ``--episode``). Each is stored as ``/add`` stores it and run
through every phase with ``ingestion.runner.run_phase``, as a worker would, but in one process with no
broker, so the figure is the phases' own work. ``--warmup`` episodes go first and are not counted (models
load, caches fill). Reports per-episode and median seconds per phase, and the time spent in the local
embedding model (``LocalMiniLMEmbedder.embed``) beside the phases.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import time
from argparse import ArgumentParser
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
from django.conf import settings
from numpy.typing import NDArray

from ingestion.phases import MODULES
from ingestion.runner import Claim, run_phase
from memhq.ai.beside import usable_cpus
from memhq.ai.embeddings import LocalMiniLMEmbedder
from memhq.services.episodes import episode_create
from memhq.services.tenancy import project_create
from tooling.bench.report import write_json
from tooling.bench.series import Bars
from tooling.evaluation.dataset import EvalEpisode, load_episodes

HELP = "per-phase seconds of a data set's typical (median-length) episodes, in process (no broker)"
#: The issue's target for an episode like those of a long user<->assistant data set.
TARGET_S = 1.5


def add_arguments(parser: ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, required=True, help="a data set folder with episodes.jsonl")
    parser.add_argument("--episodes", type=int, default=3, help="how many median-length episodes are timed")
    parser.add_argument("--episode", action="append", default=[], help="time this episode id (repeatable)")
    parser.add_argument("--warmup", type=int, default=1, help="episodes run first and not counted")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--plot", type=Path, help="also draw the per-phase medians to this PNG")


def chosen(episodes: Sequence[EvalEpisode], names: Sequence[str], count: int) -> list[EvalEpisode]:
    """The named episodes (in the order named), else the ``count`` whose message counts are nearest the
    median (ties: file order)."""
    if names:
        by_id = {episode.episode_id: episode for episode in episodes}
        unknown = [name for name in names if name not in by_id]
        if unknown:
            raise ValueError(f"unknown episode id(s): {', '.join(unknown)}")
        return [by_id[name] for name in names]
    sizes = [len(episode.body["messages"]) for episode in episodes]
    middle = statistics.median(sizes) if sizes else 0
    order = sorted(range(len(episodes)), key=lambda i: (abs(sizes[i] - middle), i))
    return [episodes[i] for i in order[:count]]


class EmbeddingClock:
    """Seconds spent in ``LocalMiniLMEmbedder.embed`` while installed (a benchmark's own instrument)."""

    def __init__(self) -> None:
        self.seconds = 0.0

    @contextlib.contextmanager
    def installed(self) -> Iterator[EmbeddingClock]:
        original = LocalMiniLMEmbedder.embed

        def timed(embedder: LocalMiniLMEmbedder, texts: Sequence[str]) -> NDArray[np.float32]:
            started = time.perf_counter()
            try:
                return original(embedder, texts)
            finally:
                self.seconds += time.perf_counter() - started

        with mock.patch.object(LocalMiniLMEmbedder, "embed", timed):
            yield self


def time_episode(project: Any, episode: EvalEpisode, clock: EmbeddingClock) -> dict[str, Any]:
    """Store ``episode`` as /add does, then run each phase; seconds per phase and in the embedder."""
    raw = json.dumps(episode.body).encode()
    stored = episode_create(project=project, user_id=episode.conv_id, raw_body=raw)
    phases: dict[str, float] = {}
    clock.seconds = 0.0
    for phase, module in MODULES.items():
        started = time.perf_counter()
        outcome = run_phase(str(stored.episode.pk), phase, module)
        if outcome != Claim.CLAIMED:  # a worker of another stack on this database took it: no figure
            raise ValueError(f"{episode.episode_id}: phase {phase.label} was not run here ({outcome})")
        phases[phase.label] = round(time.perf_counter() - started, 3)
    return {
        "episode": episode.episode_id,
        "messages": len(episode.body["messages"]),
        "characters": sum(len(message["content"]) for message in episode.body["messages"]),
        "seconds": round(sum(phases.values()), 3),
        "embedding_s": round(clock.seconds, 3),
        "phases_s": phases,
    }


def summary(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    if not runs:
        return {"episodes": 0, "median_s": None, "median_embedding_s": None, "phase_median_s": {}}

    def median(values: Iterator[float]) -> float:
        return round(statistics.median(values), 3)

    return {
        "episodes": len(runs),
        "median_s": median(run["seconds"] for run in runs),
        "median_embedding_s": median(run["embedding_s"] for run in runs),
        "phase_median_s": {
            phase: median(run["phases_s"][phase] for run in runs) for phase in runs[0]["phases_s"]
        },
    }


def machine_state() -> dict[str, Any]:
    """What the figure depends on besides the code: helper threads, CPUs, how busy the box was."""
    return {
        "model_helpers": settings.MEMHQ_MODEL_HELPERS,
        "usable_cpus": usable_cpus(),
        "load_average": [round(value, 2) for value in os.getloadavg()],
    }


def run(options: dict[str, Any], write: Callable[[str], Any]) -> dict[str, Any]:
    episodes = load_episodes(options["data"])
    timed = chosen(episodes, options["episode"], options["episodes"])
    warmups = [episode for episode in episodes if episode not in timed][: options["warmup"]]
    project, _ = project_create(name=f"bench-episode-{time.time_ns()}")
    machine = machine_state()
    write(
        f"MEMHQ_MODEL_HELPERS={machine['model_helpers']} (lent while a core is idle), "
        f"{machine['usable_cpus']} CPUs, load average {machine['load_average']} at the start"
    )
    clock = EmbeddingClock()
    runs: list[dict[str, Any]] = []
    try:
        with clock.installed():
            for episode in warmups:
                write(f"warm-up: {episode.episode_id} ({len(episode.body['messages'])} messages)…")
                time_episode(project, episode, clock)
            for number, episode in enumerate(timed, 1):
                result = time_episode(project, episode, clock)
                runs.append(result)
                write(
                    f"[{number}/{len(timed)}] {result['episode']}: {result['messages']} messages, "
                    f"{result['seconds']} s (embedding {result['embedding_s']} s)"
                )
    finally:
        project.delete()
    document = {"runs": runs, **summary(runs), "target_s": TARGET_S, "machine": machine}
    write(json.dumps(document, indent=2))
    write(f"\nmedian {document['median_s']} s per episode (target ≤ {TARGET_S} s)")
    if options.get("json"):
        write_json(options["json"], document)
    if options.get("plot"):
        from tooling.bench import plot  # matplotlib is a dev requirement: imported only when asked for

        medians = {name: seconds * 1000 for name, seconds in document["phase_median_s"].items()}
        chart = Bars("phase medians", medians)
        write(f"plot: {plot.save(options['plot'], 'episode phases, in process', charts=[chart])}")
    return document
