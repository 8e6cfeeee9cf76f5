"""``manage.py memhq_bench thread``: working memory over HTTP, and prepare-and-recall in process.

1. ``POST /threads/{id}/messages`` and ``GET /threads/{id}/prepare?message_limit=20``, each under load
   (closed loop, ``--clients`` connections, each on its own thread; ``--rate`` adds an open-loop run), served
   by a gunicorn started like the Procfile's web line (or ``--url``). Threads are prefilled with 30 messages
   and a summary, so prepare returns a system message + 20 messages.
2. prepare-and-recall, in this process, one call at a time: prepare then recall (``concurrent=False``)
   against prepare with recall running beside it on the helper thread (the default), and prepare alone and
   recall alone for reference, interleaved, query embedding included. ``--recall-iterations 0`` skips it.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from argparse import ArgumentParser
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from memhq.models import Project
from memhq.selectors.threads import RecallOptions, prepare_and_recall, thread_prepare
from memhq.threads import pool
from retrieval.recall import recall
from tooling.bench import cpu
from tooling.bench.add import bench_project, served
from tooling.bench.http import Load, Target, run_load
from tooling.bench.report import Summary, format_cpu, format_summary, percentile, summarize, write_json
from tooling.bench.server import wsgi_target
from tooling.bench.thread_setup import clean_up, make_memories, make_threads

HELP = "thread add-message and prepare latency over HTTP, and prepare-and-recall sequential vs concurrent"
DEFAULT_CLIENTS = 32
DEFAULT_SECONDS = 10.0
DEFAULT_WARMUP_S = 2.0
DEFAULT_RECALL_ITERATIONS = 200
#: The open-loop run: a steady arrival rate well under capacity, so latency is one request's, not a queue's.
DEFAULT_RATE = 100.0
MESSAGE_LIMIT = 20
QUERY = "Where is the user travelling and what can Ana eat?"
MESSAGE = {"role": "user", "content": "Could you also find a fado bar near Alfama for our last evening?"}
TARGETS_P50_MS = {"add_message": 3.0, "prepare": 3.0}
NS_PER_MS = 1_000_000


def add_arguments(parser: ArgumentParser) -> None:
    parser.add_argument("--clients", type=int, default=DEFAULT_CLIENTS, help="concurrent connections")
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=DEFAULT_WARMUP_S, help="unmeasured seconds before")
    parser.add_argument(
        "--rate", type=float, default=DEFAULT_RATE, help="then an open loop at this req/s (0: skip it)"
    )
    parser.add_argument("--url", help="a running MemHQ (default: start gunicorn like the Procfile)")
    parser.add_argument("--key", help="API key to use (default: a bench project, removed afterwards)")
    parser.add_argument("--workers", type=int, help="gunicorn workers (default: $WEB_CONCURRENCY/Procfile)")
    parser.add_argument(
        "--recall-iterations", type=int, default=DEFAULT_RECALL_ITERATIONS, help="per mode; 0 skips it"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")


@dataclass(frozen=True)
class PerClientTarget(Target):
    """One request per client, each to its own path (its own thread); ``bodies`` empty for GET."""

    method: str = "POST"
    paths: Sequence[str] = field(default_factory=list)

    def requests(self) -> list[bytes]:
        netloc = urlsplit(self.url).netloc
        extra = [f"{name}: {value}" for name, value in self.headers.items()]
        out = []
        for path, body in zip(self.paths, self.bodies, strict=True):
            head = [f"{self.method} {path} HTTP/1.1", f"Host: {netloc}", *extra]
            if body:
                head += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
            out.append(("\r\n".join([*head, "", ""])).encode() + body)
        return out


def targets(url: str, auth: dict[str, str], keys: list[str]) -> dict[str, PerClientTarget]:
    base = "/v1/memhq/threads/"
    body = json.dumps(MESSAGE).encode()
    return {
        "add_message": PerClientTarget(
            url=url, bodies=[body] * len(keys), headers=auth, paths=[f"{base}{k}/messages" for k in keys]
        ),
        "prepare": PerClientTarget(
            url=url,
            bodies=[b""] * len(keys),
            headers=auth,
            method="GET",
            paths=[f"{base}{k}/prepare?message_limit={MESSAGE_LIMIT}" for k in keys],
        ),
    }


def loads(options: dict[str, Any]) -> list[Load]:
    common = {"clients": options["clients"], "seconds": options["seconds"], "warmup_s": options["warmup"]}
    closed = Load(**common)
    return [closed, Load(**common, rate=options["rate"])] if options.get("rate") else [closed]


def http_runs(
    url: str, auth: dict[str, str], keys: list[str], pid: int | None, options: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    runs: dict[str, dict[str, Any]] = {}
    for name, target in targets(url, auth, keys).items():
        for load in loads(options):
            result = run_load(target, load, cpu.probe_for(pid))
            used = cpu.cpu_ms(result.probes["start"], result.probes["end"])
            runs.setdefault(name, {})[load.mode] = {"summary": summarize(result), "cpu_ms": used}
    return runs


def _figures(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)
    return {
        "p50_ms": percentile(ordered, 50) / NS_PER_MS,
        "p99_ms": percentile(ordered, 99) / NS_PER_MS,
        "mean_ms": sum(ordered) / len(ordered) / NS_PER_MS,
    }


def recall_runs(project: Project, key: str, user: str, iterations: int) -> dict[str, dict[str, float]]:
    """One call at a time, the modes interleaved (after a warm-up round): prepare alone, recall alone,
    prepare-and-recall sequential (prepare, then recall) and concurrent (recall beside prepare)."""
    options = RecallOptions(query=QUERY, limit=20, max_tokens=2000)
    calls: dict[str, Callable[[], Any]] = {
        "prepare_only": lambda: thread_prepare(project=project, key=key, message_limit=MESSAGE_LIMIT),
        "recall_only": lambda: recall(project_id=project.pk, user_id=user, query_text=QUERY),
        "sequential": lambda: prepare_and_recall(
            project=project, key=key, message_limit=MESSAGE_LIMIT, options=options, concurrent=False
        ),
        "concurrent": lambda: prepare_and_recall(
            project=project, key=key, message_limit=MESSAGE_LIMIT, options=options
        ),
    }
    samples: dict[str, list[int]] = {mode: [] for mode in calls}
    try:
        for index in range(iterations + 1):
            for mode, call in calls.items():
                started = time.perf_counter_ns()
                call()
                if index:
                    samples[mode].append(time.perf_counter_ns() - started)
    finally:
        pool.shutdown()
    return {mode: _figures(values) for mode, values in samples.items() if values}


def run(options: dict[str, Any], write: Callable[[str], Any]) -> dict[str, Any]:
    project_ref = bench_project(options.get("key"))
    project = Project.objects.get(pk=project_ref.project_id)
    auth = {"Authorization": f"Bearer {project_ref.key}"}
    document: dict[str, Any] = {"benchmark": "thread", "cores": os.cpu_count() or 1}
    try:
        made = make_threads(project, options["clients"])
        with tempfile.TemporaryDirectory(prefix="memhq-bench-") as tmp:
            target = wsgi_target(settings.WSGI_APPLICATION)
            log = Path(tmp) / "memhq.log"
            with served(options.get("url"), target, log, options.get("workers"), {}) as (url, pid):
                write(f"MemHQ: {url} (server pid {pid or 'not local'}), {options['clients']} threads")
                runs = http_runs(url, auth, made.keys, pid, options)
        if options["recall_iterations"] > 0:
            make_memories(project, made.user_ids[0])
            document["prepare_and_recall"] = recall_runs(
                project, made.keys[0], made.user_ids[0], options["recall_iterations"]
            )
    finally:
        document["cleanup"] = clean_up(project_ref.project_id, project_ref.created)
    document["workers"] = options.get("workers") or os.environ.get("WEB_CONCURRENCY") or "Procfile default"
    document["runs"] = {
        name: {mode: {**asdict(r["summary"]), "cpu_ms": r["cpu_ms"]} for mode, r in modes.items()}
        for name, modes in runs.items()
    }
    document["targets"] = check_targets(runs)
    write(render(runs, document))
    if options.get("json"):
        write_json(options["json"], document)
    return document


def check_targets(runs: dict[str, dict[str, Any]]) -> list[str]:
    lines = []
    for name, modes in runs.items():
        for mode, figures in modes.items():
            summary: Summary = figures["summary"]
            ok = summary.p50_ms <= TARGETS_P50_MS[name] and summary.errors == 0
            lines.append(
                f"[{name} {mode}] p50 {summary.p50_ms:.2f} ms ≤ {TARGETS_P50_MS[name]:g} ms, 0 errors:"
                f" {'ok' if ok else 'MISSED'}"
            )
    return lines


def render(runs: dict[str, dict[str, Any]], document: dict[str, Any]) -> str:
    cores = document["cores"]
    parts = [f"\n{cores} cores; gunicorn workers {document['workers']}"]
    for name, modes in runs.items():
        for mode, figures in modes.items():
            summary = figures["summary"]
            parts += [
                format_summary(f"{name} [{mode}]", summary),
                format_cpu(figures["cpu_ms"], summary.requests, summary.seconds, cores),
            ]
    for mode, figures in document.get("prepare_and_recall", {}).items():
        parts.append(
            f"in process, one call at a time [{mode}]: p50 {figures['p50_ms']:.2f} ms,"
            f" p99 {figures['p99_ms']:.2f} ms, mean {figures['mean_ms']:.2f} ms"
        )
    parts += [f"target {line}" for line in document["targets"]]
    parts.append("cleanup: " + ", ".join(f"{key} {value}" for key, value in document["cleanup"].items()))
    return "\n".join(part for part in parts if part)
