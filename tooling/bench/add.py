"""``manage.py memhq_bench add``: ``POST /v1/memhq/add`` under load, then a one-INSERT baseline.

Both are served by a gunicorn started like the Procfile's web line (``make run``), unless ``--url`` /
``--baseline-url`` name running servers; they run one after the other, never together. Every client sends a
realistic 10-message episode as its own user. Afterwards the benchmark's episodes, their queued chains and
(if it made one) its project are removed.
"""

from __future__ import annotations

import os
import tempfile
from argparse import ArgumentParser
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings

from memhq.models import ApiKey
from memhq.services.tenancy import project_create, split_key
from tooling.bench import cpu
from tooling.bench.baseline import BASELINE_ROUTE, BASELINE_USER_ID, PROJECT_HEADER
from tooling.bench.cleanup import Cleanup, clean_up
from tooling.bench.episode import episode_body
from tooling.bench.http import Load, Target, run_load
from tooling.bench.report import Summary, format_cpu, format_summary, ratio, summarize, write_json
from tooling.bench.series import Series
from tooling.bench.server import gunicorn, procfile_workers, wsgi_target
from tooling.bench.urls import BASELINE_ENV

HELP = "POST /v1/memhq/add under load, compared with a one-INSERT Django view on the same gunicorn."
ADD_PATH = "/v1/memhq/add"
BASELINE_WSGI = "tooling.bench.wsgi:application"
USER_PREFIX = "bench-user-"
DEFAULT_CLIENTS = 32
DEFAULT_SECONDS = 20.0
DEFAULT_WARMUP_S = 3.0
# The targets for /add on a 2-core machine.
TARGET_P50_MS = 3.0
TARGET_P99_MS = 15.0
TARGET_RPS = 800.0
TARGET_RATIO = 1.3


def add_arguments(parser: ArgumentParser) -> None:
    parser.add_argument("--clients", type=int, default=DEFAULT_CLIENTS, help="concurrent connections")
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=DEFAULT_WARMUP_S, help="unmeasured seconds before")
    parser.add_argument("--rate", type=float, help="after the closed loop, also run open loop at this req/s")
    parser.add_argument("--url", help="a running MemHQ (default: start gunicorn like the Procfile)")
    parser.add_argument("--key", help="API key to use (default: a bench project, removed afterwards)")
    parser.add_argument(
        "--baseline-url", help="a running tooling.bench.wsgi server with MEMHQ_BENCH_BASELINE=1"
    )
    parser.add_argument("--no-baseline", action="store_true", help="skip the baseline")
    parser.add_argument(
        "--workers", type=int, help="gunicorn workers (default: $WEB_CONCURRENCY, else Procfile)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--plot", type=Path, help="also draw latency CDFs and throughput to this PNG")
    parser.add_argument("--keep", action="store_true", help="keep the episodes and their queued chains")


@dataclass(frozen=True)
class BenchProject:
    project_id: str
    key: str
    created: bool


@dataclass(frozen=True)
class Run:
    summary: Summary
    cpu_ms: dict[str, float]  # CPU ms per process group over the measured window
    series: Series  # the raw latencies and completion times, for --plot


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
def served(
    url: str | None, target: str, log: Path, workers: int | None, env: dict[str, str]
) -> Iterator[tuple[str, int | None]]:
    """(base url, gunicorn pid) of the given server, or of a gunicorn started for the duration."""
    if url is not None:
        yield url.rstrip("/"), cpu.server_root(url)
        return
    with gunicorn(target=target, log=log, workers=workers, extra_env=env) as server:
        yield server.url, server.pid


def loads(options: dict[str, Any]) -> list[Load]:
    common = {"clients": options["clients"], "seconds": options["seconds"], "warmup_s": options["warmup"]}
    closed = Load(**common)
    return [closed] if options.get("rate") is None else [closed, Load(**common, rate=options["rate"])]


def measure(url: str, headers: dict[str, str], pid: int | None, options: dict[str, Any]) -> dict[str, Run]:
    bodies = [episode_body(f"{USER_PREFIX}{client:03d}") for client in range(options["clients"])]
    target = Target(url=url, bodies=bodies, headers=headers)
    runs: dict[str, Run] = {}
    for load in loads(options):
        result = run_load(target, load, cpu.probe_for(pid))
        used = cpu.cpu_ms(result.probes["start"], result.probes["end"])
        runs[load.mode] = Run(
            summary=summarize(result),
            cpu_ms=used,
            series=Series(load.mode, result.latencies_ns, result.done_s),
        )
    return runs


def run(options: dict[str, Any], write: Callable[[str], Any]) -> dict[str, Any]:
    """Measure MemHQ, then the baseline; print the figures; return (and optionally save) them."""
    project = bench_project(options.get("key"))
    auth = {"Authorization": f"Bearer {project.key}"}
    workers = options.get("workers")
    runs: dict[str, dict[str, Run]] = {}
    cleanup: Cleanup | None = None
    with tempfile.TemporaryDirectory(prefix="memhq-bench-") as tmp:
        try:
            memhq_wsgi = wsgi_target(settings.WSGI_APPLICATION)
            with served(options.get("url"), memhq_wsgi, Path(tmp) / "memhq.log", workers, {}) as (url, pid):
                write(f"MemHQ: {url}{ADD_PATH} (server pid {pid or 'not local'})")
                runs["memhq"] = measure(url + ADD_PATH, auth, pid, options)
            if not options.get("no_baseline"):
                log, env = Path(tmp) / "baseline.log", {BASELINE_ENV: "1"}
                with served(options.get("baseline_url"), BASELINE_WSGI, log, workers, env) as (url, pid):
                    write(f"baseline: {url}/{BASELINE_ROUTE} (server pid {pid or 'not local'})")
                    headers = {**auth, PROJECT_HEADER: project.project_id}
                    runs["baseline"] = measure(f"{url}/{BASELINE_ROUTE}", headers, pid, options)
        finally:
            if not options.get("keep"):
                cleanup = clean_up(
                    project_id=project.project_id,
                    created=project.created,
                    user_prefix=USER_PREFIX,
                    baseline_user=BASELINE_USER_ID,
                )
    document = build_document(options, runs, cleanup)
    write(render(runs, document))
    if options.get("json"):
        write_json(options["json"], document)
    if options.get("plot"):
        write(f"plot: {plot_runs(options['plot'], runs)}")
    return document


def plot_runs(path: Path, runs: dict[str, dict[str, Run]]) -> Path:
    """Latency CDFs and throughput over time of every run (MemHQ and the baseline, each mode)."""
    from tooling.bench import plot  # matplotlib is a dev requirement: imported only when asked for

    series = [
        Series(f"{server} {mode}", run.series.latencies_ns, run.series.done_s)
        for server, modes in runs.items()
        for mode, run in modes.items()
    ]
    return plot.save(path, "POST /v1/memhq/add vs the one-INSERT baseline", latencies=series, rates=series)


def ratios(runs: dict[str, dict[str, Run]]) -> dict[str, dict[str, float | None]]:
    """Per mode: MemHQ latency / baseline latency, and baseline req/s / MemHQ req/s (> 1: MemHQ is slower)."""
    found = {}
    for mode, memhq in runs.get("memhq", {}).items():
        base = runs.get("baseline", {}).get(mode)
        if base is not None:
            found[mode] = {
                "p50": ratio(memhq.summary.p50_ms, base.summary.p50_ms),
                "p99": ratio(memhq.summary.p99_ms, base.summary.p99_ms),
                "rps": ratio(base.summary.rps, memhq.summary.rps),
            }
    return found


def check_targets(runs: dict[str, dict[str, Run]], found: dict[str, dict[str, float | None]]) -> list[str]:
    lines = []
    for mode, figures in runs.get("memhq", {}).items():
        s = figures.summary
        checks = [
            (f"p50 ≤ {TARGET_P50_MS:g} ms", s.p50_ms, s.p50_ms <= TARGET_P50_MS),
            (f"p99 ≤ {TARGET_P99_MS:g} ms", s.p99_ms, s.p99_ms <= TARGET_P99_MS),
            (f"≥ {TARGET_RPS:g} requests/s", s.rps, s.rps >= TARGET_RPS),
            ("0 errors", s.errors, s.errors == 0),
        ]
        for name, value in found.get(mode, {}).items():
            checks.append((f"{name} ratio ≤ {TARGET_RATIO:g}×", value or 0.0, (value or 0.0) <= TARGET_RATIO))
        lines += [f"[{mode}] {name}: {value:.2f} {'ok' if ok else 'MISSED'}" for name, value, ok in checks]
    return lines


def workers_started(options: dict[str, Any]) -> str:
    if options.get("url") and (options.get("no_baseline") or options.get("baseline_url")):
        return "external server"
    env = dict(os.environ)
    if options.get("workers"):
        env["WEB_CONCURRENCY"] = str(options["workers"])
    return procfile_workers(env)


def build_document(
    options: dict[str, Any], runs: dict[str, dict[str, Run]], cleanup: Cleanup | None
) -> dict[str, Any]:
    found = ratios(runs)
    return {
        "benchmark": "add",
        "body_bytes": len(episode_body(f"{USER_PREFIX}000")),
        "cores": os.cpu_count() or 1,
        "workers": workers_started(options),
        "runs": {
            server: {mode: {**asdict(r.summary), "cpu_ms": r.cpu_ms} for mode, r in modes.items()}
            for server, modes in runs.items()
        },
        "ratios": found,
        "targets": check_targets(runs, found),
        "cleanup": asdict(cleanup) if cleanup else None,
    }


def render(runs: dict[str, dict[str, Run]], document: dict[str, Any]) -> str:
    cores = document["cores"]
    parts = [f"\nbody {document['body_bytes']} bytes; {cores} cores; gunicorn workers {document['workers']}"]
    for server, modes in runs.items():
        for mode, figures in modes.items():
            s = figures.summary
            parts += [
                format_summary(f"{server} [{mode}]", s),
                format_cpu(figures.cpu_ms, s.requests, s.seconds, cores),
            ]
    for mode, found in document["ratios"].items():
        parts.append(
            f"MemHQ vs baseline [{mode}]: p50 ×{found['p50'] or 0:.2f}, p99 ×{found['p99'] or 0:.2f},"
            f" throughput ÷{found['rps'] or 0:.2f}"
        )
    parts += [f"target {line}" for line in document["targets"]]
    if document["cleanup"]:
        parts.append("cleanup: " + ", ".join(f"{key} {value}" for key, value in document["cleanup"].items()))
    return "\n".join(part for part in parts if part)
