"""``manage.py memhq_bench add``: ``POST /v1/memhq/add`` under load, then the one-INSERT baseline, same gunicorn.

Both servers are started like the Procfile's web line (``make run``) unless ``--url`` / ``--baseline-url`` name
running ones; they run one after the other, never together. Every client sends a realistic 10-message episode.
Afterwards the benchmark's episodes, their queued chains and (if it made one) its project are removed.
"""

from __future__ import annotations

import json
import os
import tempfile
from argparse import ArgumentParser
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings

from memhq.bench import cpu
from memhq.bench.baseline import BASELINE_ROUTE, BASELINE_USER_ID, PROJECT_HEADER
from memhq.bench.cleanup import clean_up
from memhq.bench.http import Load, LoadResult, Target, run_load
from memhq.bench.report import format_cpu, format_summary, ratio, summarize, write_json
from memhq.bench.server import gunicorn, wsgi_target
from memhq.bench.targets import check_targets
from memhq.bench.urls import BASELINE_ENV
from memhq.models import ApiKey
from memhq.services.tenancy import project_create, split_key

HELP = "POST /v1/memhq/add under load, compared with a one-INSERT Django view on the same gunicorn."
ADD_PATH = "/v1/memhq/add"
BASELINE_WSGI = "memhq.bench.wsgi:application"
USER_PREFIX = "bench-user-"
DEFAULT_CLIENTS = 32
DEFAULT_SECONDS = 20.0
DEFAULT_WARMUP_S = 3.0
EPISODE = (
    ("user", "Hi! I'm planning a trip to Lisbon with my partner Ana at the end of May, probably for a week."),
    ("assistant", "Lisbon in late May is lovely: warm, not too crowded yet. Is it your first visit?"),
    ("user", "Second time for me, first for Ana. Last time I stayed in Alfama and loved the fado bars there."),
    ("assistant", "Then Alfama again, or Príncipe Real for something quieter with good restaurants?"),
    ("user", "Quieter sounds good. Ana is vegetarian and I can't eat shellfish, so we need places for both."),
    ("assistant", "Noted: vegetarian for Ana, no shellfish for you. Ao 26 and Prado are good fits for both."),
    ("user", "Great. Also I started a new job at Siemens in Munich in March, so I can only take six days off."),
    ("assistant", "Six days works: three in Lisbon, a day trip to Sintra, two in Porto by train. Does that fit?"),
    ("user", "Perfect. We'll fly from Munich on May 24th. Please remind me to book the Sintra tickets early."),
    ("assistant", "Will do. I'll also keep in mind that you prefer aisle seats and trains over domestic flights."),
)


def episode_body(user_id: str) -> bytes:
    messages = [{"role": role, "content": content} for role, content in EPISODE]
    return json.dumps({"user_id": user_id, "messages": messages, "metadata": {"source": "memhq-bench"}}).encode()


def add_arguments(parser: ArgumentParser) -> None:
    parser.add_argument("--clients", type=int, default=DEFAULT_CLIENTS, help="concurrent connections")
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=DEFAULT_WARMUP_S, help="unmeasured seconds first")
    parser.add_argument("--rate", type=float, help="also run open loop at this many requests/s")
    parser.add_argument("--url", help="a running MemHQ (default: start gunicorn like the Procfile)")
    parser.add_argument("--key", help="API key to use (default: a bench project is created and removed)")
    parser.add_argument("--baseline-url", help="a running memhq.bench.wsgi server with MEMHQ_BENCH_BASELINE=1")
    parser.add_argument("--no-baseline", action="store_true", help="skip the baseline")
    parser.add_argument("--workers", type=int, help="gunicorn workers (default: $WEB_CONCURRENCY or the Procfile's)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--keep", action="store_true", help="keep the episodes and their queued chains")


@dataclass(frozen=True)
class BenchProject:
    project_id: str
    key: str
    created: bool


def bench_project(key: str | None) -> BenchProject:
    if key is not None:
        parts = split_key(key)
        api_key = ApiKey.objects.filter(prefix=parts[0]).first() if parts else None
        if api_key is None:
            raise ValueError("--key is not an API key of this database")
        return BenchProject(project_id=str(api_key.project_id), key=key, created=False)
    stamp = datetime.now(tz=UTC).strftime("%Y%m%dT%H%M%S%f")
    project, issued = project_create(name=f"bench-{stamp}")
    return BenchProject(project_id=str(project.pk), key=issued.plaintext, created=True)


@contextmanager
def served(url: str | None, target: str, log: Path, workers: int | None, env: dict[str, str]) -> Iterator[Any]:
    """(base url, gunicorn pid or None) of a given server, or of one started for the duration."""
    if url is not None:
        yield url.rstrip("/"), None
        return
    with gunicorn(target=target, log=log, workers=workers, extra_env=env) as server:
        yield server.url, server.pid


def loads(options: dict[str, Any]) -> list[Load]:
    closed = Load(clients=options["clients"], seconds=options["seconds"], warmup_s=options["warmup"])
    if options.get("rate") is None:
        return [closed]
    return [closed, Load(options["clients"], options["seconds"], options["warmup"], rate=options["rate"])]


def measure(base_url: str, path: str, headers: dict[str, str], pid: int | None, options: dict[str, Any]) -> dict:
    bodies = [episode_body(f"{USER_PREFIX}{client:03d}") for client in range(options["clients"])]
    target = Target(url=base_url + path, bodies=bodies, headers=headers)
    runs: dict[str, Any] = {}
    for load in loads(options):
        probe = cpu.probe_for(pid)
        result: LoadResult = run_load(target, load, probe)
        summary = summarize(result)
        used = cpu.cpu_ms(result.probes["start"], result.probes["end"]) if len(result.probes) == 2 else {}
        runs[load.mode] = {**summary.as_dict(), "cpu_ms": used, "ok": result.ok}
    return runs


def run(options: dict[str, Any], write: Callable[[str], Any]) -> dict[str, Any]:
    project = bench_project(options.get("key"))
    workers = options.get("workers")
    runs: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="memhq-bench-") as tmp:
        try:
            auth = {"Authorization": f"Bearer {project.key}"}
            log = Path(tmp) / "memhq.log"
            with served(options.get("url"), wsgi_target(settings.WSGI_APPLICATION), log, workers, {}) as (url, pid):
                write(f"MemHQ /add at {url}{ADD_PATH} (gunicorn pid {pid or 'external'})")
                runs["memhq"] = measure(url, ADD_PATH, auth, pid, options)
            if not options.get("no_baseline"):
                log, env = Path(tmp) / "baseline.log", {BASELINE_ENV: "1"}
                headers = {**auth, PROJECT_HEADER: project.project_id}
                with served(options.get("baseline_url"), BASELINE_WSGI, log, workers, env) as (url, pid):
                    write(f"baseline at {url}/{BASELINE_ROUTE} (gunicorn pid {pid or 'external'})")
                    runs["baseline"] = measure(url, f"/{BASELINE_ROUTE}", headers, pid, options)
        finally:
            cleanup = None
            if not options.get("keep"):
                cleanup = clean_up(
                    project_id=project.project_id,
                    created=project.created,
                    user_prefix=USER_PREFIX,
                    baseline_user=BASELINE_USER_ID,
                )
    document = build_document(options, runs, cleanup.__dict__ if cleanup else None)
    write(render(document))
    if options.get("json"):
        write_json(options["json"], document)
    return document


def build_document(options: dict[str, Any], runs: dict[str, Any], cleanup: dict[str, Any] | None) -> dict:
    ratios: dict[str, Any] = {}
    for mode, memhq in runs.get("memhq", {}).items():
        baseline = runs.get("baseline", {}).get(mode)
        if baseline:
            ratios[mode] = {
                "p50": ratio(memhq["p50_ms"], baseline["p50_ms"]),
                "p99": ratio(memhq["p99_ms"], baseline["p99_ms"]),
                "rps": ratio(baseline["rps"], memhq["rps"]),  # > 1: MemHQ serves fewer requests/s
            }
    return {
        "benchmark": "add",
        "body_bytes": len(episode_body(f"{USER_PREFIX}000")),
        "cores": os.cpu_count() or 1,
        "workers": options.get("workers") or os.environ.get("WEB_CONCURRENCY") or "Procfile default",
        "runs": runs,
        "ratios": ratios,
        "targets": check_targets(runs.get("memhq", {}), ratios),
        "cleanup": cleanup,
    }


def render(document: dict[str, Any]) -> str:
    parts = [f"\nbody {document['body_bytes']} bytes, {document['cores']} cores, workers {document['workers']}"]
    for server, modes in document["runs"].items():
        for mode, figures in modes.items():
            summary = {key: value for key, value in figures.items() if key not in ("cpu_ms", "ok")}
            parts.append(format_summary(f"{server} [{mode}]", type_summary(summary)))
            parts.append(format_cpu("  ", figures["cpu_ms"], figures["ok"], figures["seconds"], document["cores"]))
    for mode, figures in document["ratios"].items():
        parts.append(
            f"MemHQ / baseline [{mode}]: p50 ×{figures['p50'] or 0:.2f}, p99 ×{figures['p99'] or 0:.2f},"
            f" throughput ÷{figures['rps'] or 0:.2f}"
        )
    parts += [f"target {line}" for line in document["targets"]]
    if document["cleanup"]:
        parts.append("cleanup: " + ", ".join(f"{key} {value}" for key, value in document["cleanup"].items()))
    return "\n".join(part for part in parts if part)


def type_summary(figures: dict[str, Any]) -> Any:
    from memhq.bench.report import Summary

    return Summary(**figures)
