"""``memhq_bench ingest``: throughput and freshness of the pipeline with real workers, offline extractor.

1. Throughput: --episodes 10-message episodes are sent to /add over HTTP as fast as the server takes them;
   episodes/s = episodes / (last completion − first receipt). Per-phase medians come from each episode's
   completion record.
2. Freshness at an offered load: --rate episodes/s for --latency-seconds (open loop); /add → indexed_at
   (the moment recall can see the episode's memories) p50/p95.

The web server is a gunicorn started as the Procfile does; the workers are one ``celery worker`` with
--concurrency processes (default: one per core).
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import statistics
import tempfile
import threading
import time
from argparse import ArgumentParser
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from django.db.models import Max, Min

from memhq.models import Episode, EpisodeStatus, Project
from memhq.services.tenancy import project_create
from tooling.bench.episode import episode_body
from tooling.bench.report import write_json
from tooling.bench.series import Bars, Series
from tooling.bench.server import gunicorn
from tooling.bench.workers import celery_worker, outbox_relay

HELP = "ingestion throughput and /add → indexed_at latency with real workers"
TARGET_EPISODES_PER_S = 15.0
TARGET_P95_S = 1.0
SENDER_THREADS = 4
WARMUP_EPISODES = 4
POLL_S = 0.2
PROGRESS_EVERY_S = 10.0
WAIT_TIMEOUT_S = 1800.0
PHASES = ("persist", "anchor dates", "extract", "resolve entities", "reconcile", "index", "notify")


def add_arguments(parser: ArgumentParser) -> None:
    parser.add_argument("--episodes", type=int, default=500, help="episodes in the throughput run")
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 2, help="worker processes")
    parser.add_argument("--rate", type=float, default=5.0, help="offered load of the latency run, episodes/s")
    parser.add_argument("--latency-seconds", type=float, default=20.0, help="length of the latency run")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--plot", type=Path, help="also draw freshness, throughput and phases to this PNG")


class Sender:
    """POSTs /add bodies over one keep-alive connection per thread."""

    def __init__(self, url: str, key: str) -> None:
        parsed = urlparse(url)
        self.host, self.port = parsed.hostname or "127.0.0.1", parsed.port or 80
        self.headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        self.local = threading.local()
        self.errors = 0

    def check(self) -> None:
        if self.errors:
            raise RuntimeError(f"{self.errors} requests to /add failed; see the web server's log")

    def post_all(self, bodies: list[bytes]) -> None:
        for body in bodies:
            self.post(body)

    def post(self, body: bytes) -> None:
        if not hasattr(self.local, "conn"):
            self.local.conn = http.client.HTTPConnection(self.host, self.port)
        try:
            self.local.conn.request("POST", "/v1/memhq/add", body=body, headers=self.headers)
            response = self.local.conn.getresponse()
            response.read()
            if response.status != 202:
                self.errors += 1
        except (OSError, http.client.HTTPException):
            self.errors += 1
            self.local.conn.close()
            del self.local.conn


def send_all(sender: Sender, bodies: list[bytes]) -> None:
    chunks = [bodies[index::SENDER_THREADS] for index in range(SENDER_THREADS)]
    threads = [threading.Thread(target=sender.post_all, args=(chunk,)) for chunk in chunks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sender.check()


def send_at_rate(sender: Sender, bodies: list[bytes], rate: float) -> None:
    started = time.monotonic()
    for index, body in enumerate(bodies):
        delay = started + index / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        sender.post(body)
    sender.check()


def wait_done(
    project: Project, user_prefix: str, count: int, write: Callable[[str], Any] | None = None
) -> None:
    """Until ``count`` episodes of the prefix finished; every PROGRESS_EVERY_S says how many have."""
    deadline = time.monotonic() + WAIT_TIMEOUT_S
    next_note = time.monotonic() + PROGRESS_EVERY_S
    episodes = Episode.objects.filter(project=project, user_id__startswith=user_prefix)
    while time.monotonic() < deadline:
        done = episodes.filter(status__in=[EpisodeStatus.COMPLETED, EpisodeStatus.FAILED]).count()
        if done >= count:
            return
        if write is not None and time.monotonic() > next_note:
            write(f"  {done}/{count} episodes done")
            next_note = time.monotonic() + PROGRESS_EVERY_S
        time.sleep(POLL_S)
    raise RuntimeError(f"episodes of {user_prefix} did not finish within {WAIT_TIMEOUT_S}s")


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered)) - 1))]


def throughput(project: Project, prefix: str) -> dict[str, Any]:
    episodes = Episode.objects.filter(project=project, user_id__startswith=prefix)
    bounds = episodes.aggregate(first=Min("received_at"), last=Max("completed_at"))
    if bounds["first"] is None or bounds["last"] is None:
        raise RuntimeError("no completed episodes to measure")
    seconds = (bounds["last"] - bounds["first"]).total_seconds()
    timings: dict[str, list[float]] = {phase: [] for phase in PHASES}
    for stats in episodes.values_list("stats", flat=True):
        for phase, value in (stats or {}).get("timings_ms", {}).items():
            timings.setdefault(phase, []).append(float(value))
    count = episodes.count()
    return {
        "episodes": count,
        "failed": episodes.filter(status=EpisodeStatus.FAILED).count(),
        "seconds": round(seconds, 2),
        "episodes_per_s": round(count / seconds, 2),
        "phase_median_ms": {phase: round(statistics.median(v), 1) for phase, v in timings.items() if v},
    }


def lags_s(project: Project, prefix: str) -> list[float]:
    """/add → indexed_at of each episode, seconds."""
    rows = Episode.objects.filter(project=project, user_id__startswith=prefix, indexed_at__isnull=False)
    return [
        (indexed - received).total_seconds()
        for received, indexed in rows.values_list("received_at", "indexed_at")
        if indexed is not None
    ]


def completions_s(project: Project, prefix: str) -> list[float]:
    """When each episode completed, seconds after the first was received."""
    episodes = Episode.objects.filter(project=project, user_id__startswith=prefix, completed_at__isnull=False)
    first = episodes.aggregate(first=Min("received_at"))["first"]
    return [(done - first).total_seconds() for done in episodes.values_list("completed_at", flat=True)]


def plot_run(path: Path, project: Project, document: dict[str, Any], rate: float) -> Path:
    """Freshness CDF, episodes completed per second in the throughput run, per-phase medians."""
    from tooling.bench import plot  # matplotlib is a dev requirement: imported only when asked for

    freshness_series = Series(
        f"/add → indexed_at at {rate}/s", [round(lag * 1e9) for lag in lags_s(project, "lat-")]
    )
    completed = Series("episodes completed", [], completions_s(project, "tp-"))
    phases = Bars("phase medians (throughput run)", document["throughput"]["phase_median_ms"])
    return plot.save(path, "ingestion", latencies=[freshness_series], rates=[completed], charts=[phases])


def hops(project: Project, prefix: str) -> dict[str, Any]:
    """What the chain itself costs, from each episode's completion record (``stats``: when each phase's claim
    started, how long its work took): /add → the first claim (the relay's publish, the broker, a worker
    taking it), each phase's end → the next claim (commit, the chain's next publish, the broker, the claim),
    and per episode the time from /add to completion that no phase spent working. Read off the freshness
    run, where workers are idle when an episode arrives, so a gap is the hop, not a queue."""
    first_claim, between, overhead = [], [], []
    episodes = Episode.objects.filter(project=project, user_id__startswith=prefix, completed_at__isnull=False)
    for received, completed, stats in episodes.values_list("received_at", "completed_at", "stats"):
        if completed is None or not stats:
            continue
        started = {phase: datetime.fromisoformat(at) for phase, at in stats.get("started_at", {}).items()}
        took = {phase: float(ms) for phase, ms in stats.get("timings_ms", {}).items()}
        if not all(phase in started and phase in took for phase in PHASES):
            continue  # a retried or partly recorded episode
        first_claim.append((started[PHASES[0]] - received).total_seconds() * 1000)
        for before, after in itertools.pairwise(PHASES):
            ended = started[before] + timedelta(milliseconds=took[before])
            between.append((started[after] - ended).total_seconds() * 1000)
        overhead.append((completed - received).total_seconds() * 1000 - sum(took.values()))
    if not overhead:
        return {"episodes": 0}
    return {
        "episodes": len(overhead),
        "to_first_claim_ms_p50": round(statistics.median(first_claim), 1),
        "between_phases_ms_p50": round(statistics.median(between), 1),
        "between_phases_ms_p95": round(percentile(between, 95), 1),
        "per_episode_ms_p50": round(statistics.median(overhead), 1),
    }


def freshness(project: Project, prefix: str) -> dict[str, Any]:
    lags = lags_s(project, prefix)
    return {
        "episodes": len(lags),
        "p50_s": round(percentile(lags, 50), 3),
        "p95_s": round(percentile(lags, 95), 3),
        "max_s": round(max(lags), 3),
    }


def run(options: dict[str, Any], write: Callable[[str], Any]) -> dict[str, Any]:
    project, issued = project_create(name=f"bench-ingest-{time.time_ns()}")
    logs = Path(tempfile.mkdtemp(prefix="memhq-bench-ingest-"))
    rate, seconds = options["rate"], options["latency_seconds"]
    try:
        with (
            gunicorn(target="config.wsgi:application", log=logs / "web.log") as server,
            outbox_relay(log=logs / "relay.log"),
            celery_worker(concurrency=options["concurrency"], log=logs / "worker.log"),
        ):
            sender = Sender(server.url, issued.plaintext)
            send_all(sender, [episode_body(f"warm-{i}") for i in range(WARMUP_EPISODES)])
            wait_done(project, "warm-", WARMUP_EPISODES)
            write(f"throughput: {options['episodes']} episodes, {options['concurrency']} worker processes…")
            send_all(sender, [episode_body(f"tp-{i % 50:02d}") for i in range(options["episodes"])])
            wait_done(project, "tp-", options["episodes"], write)
            count = max(1, round(rate * seconds))
            write(f"freshness: {count} episodes at {rate}/s…")
            send_at_rate(sender, [episode_body(f"lat-{i % 50:02d}") for i in range(count)], rate)
            wait_done(project, "lat-", count, write)
        document: dict[str, Any] = {
            "throughput": throughput(project, "tp-"),
            "freshness": {"offered_per_s": rate, **freshness(project, "lat-")},
            "chain_overhead": hops(project, "lat-"),
            "http_errors": sender.errors,
            "targets": {"episodes_per_s": TARGET_EPISODES_PER_S, "p95_s": TARGET_P95_S},
        }
        if options.get("plot"):
            write(f"plot: {plot_run(options['plot'], project, document, rate)}")
    finally:
        project.delete()
    write(json.dumps(document, indent=2))
    tp, fr, hop = document["throughput"], document["freshness"], document["chain_overhead"]
    write(
        f"\n{tp['episodes_per_s']} episodes/s (target ≥ {TARGET_EPISODES_PER_S}); "
        f"/add → indexed_at at {rate}/s: p50 {fr['p50_s']} s, p95 {fr['p95_s']} s (target ≤ {TARGET_P95_S} s)"
    )
    if hop.get("episodes"):
        write(
            f"chain overhead at {rate}/s: /add → first claim p50 {hop['to_first_claim_ms_p50']} ms, between "
            f"phases p50 {hop['between_phases_ms_p50']} ms (p95 {hop['between_phases_ms_p95']}), "
            f"per episode p50 {hop['per_episode_ms_p50']} ms not spent in a phase"
        )
    if options.get("json"):
        write_json(options["json"], document)
    return document
