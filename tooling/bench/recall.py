"""``memhq_bench recall``: /v1/memhq/recall latency over HTTP at growing memory counts for one user, and a
bare pgvector kNN query on the same table in the same run (the floor recall is compared with).

The user is synthetic. ``--shape realistic`` (the default) builds it as the pipeline would, with
``--other-users`` beside it in the same tables (tooling/bench/recall_user.py), and a medium user
(``--medium-memories``) measured at each step as well; ``--shape memories`` inserts
memory rows only (tooling/bench/recall_data.py), the earlier benchmark, on which most signals ran on empty
tables. Each step also times one recall's steps in process and keeps the statement's ``EXPLAIN (ANALYZE,
BUFFERS)`` (tooling/bench/recall_breakdown.py). One closed-loop client asking the queries of
``recall_data.QUERIES`` in turn, so the percentiles are the latency of a request over that mix, not
queueing. (Until 2026-11-29 the client sent only the first query, "What food does the user like?", one of
the slowest: its keyword term matches ~3.4% of the memories.) The gunicorn is started as the Procfile does.
"""

from __future__ import annotations

import json
import tempfile
import time
from argparse import ArgumentParser
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from django.db import DatabaseError, connection, transaction

from memhq.ai.provider import get_embedder
from memhq.models.vectors import vector_literal
from memhq.services.tenancy import project_create
from tooling.bench import recall_replica
from tooling.bench.http import Load, Target, run_load
from tooling.bench.recall_breakdown import breakdown, execution_ms, explain
from tooling.bench.recall_data import QUERIES, SEED, insert_memories
from tooling.bench.recall_user import (
    VECTOR_TABLES,
    Shape,
    VectorIndexesDropped,
    Vectors,
    build_user,
    vectors_for,
)
from tooling.bench.report import percentile, ratio, summarize, write_json
from tooling.bench.series import Bars, Series
from tooling.bench.server import gunicorn

HELP = "recall latency over HTTP at 10k and N memories, against a bare pgvector kNN on the same table"
USER_ID = "bench-recall"
#: A user of ``--medium-memories`` in the same tables, measured at every step too: a few thousand rows
#: among the big user's hundreds of thousands, the case the exact-or-HNSW choice is hardest on.
MEDIUM_USER_ID = "bench-recall-medium"
FIRST_STEP = 10_000
KNN_RUNS = 300
TARGET_P50_MS = 15.0
TARGET_P95_MS = 30.0
NS_PER_MS = 1_000_000

BARE_KNN = """
SELECT id FROM memhq_memory
WHERE project_id = %s AND user_id = %s AND status = 'active'
ORDER BY embedding <=> %s::vector LIMIT 30
"""


def add_arguments(parser: ArgumentParser) -> None:
    parser.add_argument("--memories", type=int, default=100_000, help="memories of the user at the last step")
    parser.add_argument(
        "--first-step", type=int, default=FIRST_STEP, help="measure at this many memories first (0: skip)"
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per step")
    parser.add_argument("--warmup", type=float, default=2.0, help="warm-up seconds per step")
    parser.add_argument(
        "--shape",
        choices=("realistic", "memories"),
        default="realistic",
        help="realistic: the user as the pipeline builds one (messages, passages, entities, evidence, "
        "summaries); memories: memory rows only (the earlier benchmark)",
    )
    parser.add_argument("--other-users", type=int, default=1000, help="other users in the same tables")
    parser.add_argument("--other-memories", type=int, default=100, help="memories of each other user")
    parser.add_argument(
        "--medium-memories", type=int, default=2000, help="memories of a medium user measured too (0: none)"
    )
    parser.add_argument("--breakdown-runs", type=int, default=120, help="in-process recalls timed by step")
    parser.add_argument(
        "--replica",
        action="store_true",
        help="also measure each step through a streaming replica (tooling/bench/recall_replica.py)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures (and the plans) to this file")
    parser.add_argument("--plot", type=Path, help="also draw the latency CDFs and the breakdown to this PNG")


def bare_knn(project_id: str) -> dict[str, float]:
    vectors = get_embedder().embed(list(QUERIES))
    literals = [vector_literal(vector) for vector in vectors]  # as recall's statement sends its vector
    timings: list[int] = []
    with connection.cursor() as cursor:
        for run in range(KNN_RUNS):
            started = time.perf_counter_ns()
            cursor.execute(BARE_KNN, [project_id, USER_ID, literals[run % len(literals)]])
            cursor.fetchall()
            timings.append(time.perf_counter_ns() - started)
    timings.sort()
    return {f"p{pct}_ms": percentile(timings, pct) / NS_PER_MS for pct in (50, 95, 99)}


def settle(write: Callable[[str], Any]) -> None:
    """Leave the table as a long-lived one would be before measuring: statistics and the visibility map
    (``VACUUM ANALYZE``: index-only scans of fresh rows visit the heap), and the insert's dirty pages
    written out (``CHECKPOINT``), so the background writes of 100k fresh rows do not land in the measured
    window: on one 2-core box the 100k step measured p50 31.4 / p95 47.8 ms without it, 22.4 / 34.5 with."""
    with connection.cursor() as cursor:
        for table in (*VECTOR_TABLES, "memhq_evidence"):
            cursor.execute(f"VACUUM ANALYZE {table}")
        try:
            with transaction.atomic():
                cursor.execute("CHECKPOINT")
        except DatabaseError as exc:  # needs superuser or pg_checkpoint: measure anyway, and say so
            write(f"CHECKPOINT not allowed ({exc.__class__.__name__}); measuring with the writes pending")


def steps(total: int, first: int = FIRST_STEP) -> list[int]:
    """The sizes measured: ``first`` then ``total`` (``first`` 0: only ``total``)."""
    return [first, total] if 0 < first < total else [total]


def grow(shape: str, project_id: Any, inserted: int, size: int, vectors: Vectors | None) -> None:
    """The big user from ``inserted`` to ``size`` memories (with what comes with them, when realistic)."""
    if vectors is None:
        insert_memories(project_id, USER_ID, inserted, size)
        return
    with VectorIndexesDropped():
        build_user(project_id, USER_ID, Shape(size - inserted), vectors, seed=SEED + size)


def others(options: dict[str, Any], project_id: Any, vectors: Vectors, write: Callable[[str], Any]) -> None:
    """``--other-users`` users of ``--other-memories`` memories each, in the same tables."""
    count, memories = options["other_users"], options["other_memories"]
    if not count:
        return
    started = time.perf_counter()
    with VectorIndexesDropped():
        for number in range(count):
            build_user(project_id, f"other-{number}", Shape(memories), vectors, seed=SEED - 1 - number)
            if (number + 1) % 100 == 0:
                write(f"  {number + 1}/{count} other users")
    write(f"{count} other users of {memories} memories ready ({time.perf_counter() - started:.0f} s)")


def medium_user(options: dict[str, Any], project_id: Any, vectors: Vectors) -> None:
    """The ``--medium-memories`` user, in the same tables (whether or not there are other users)."""
    if options["medium_memories"]:
        with VectorIndexesDropped():
            build_user(project_id, MEDIUM_USER_ID, Shape(options["medium_memories"]), vectors, seed=SEED + 1)


def row_counts() -> dict[str, int]:
    with connection.cursor() as cursor:
        counts = {}
        for table in (*VECTOR_TABLES, "memhq_evidence"):
            cursor.execute(f"SELECT count(*) FROM {table}")
            counts[table.removeprefix("memhq_")] = int(cursor.fetchone()[0])
    return counts


def server_memory() -> dict[str, str]:
    """The server's buffer pool against the database it serves: recall's statement reads its pages from
    the pool, or copies them in from the OS cache when they do not fit (config/devservers.py)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('shared_buffers'), pg_size_pretty(pg_database_size(current_database()))"
        )
        buffers, size = cursor.fetchone()
    return {"shared_buffers": str(buffers), "database_size": str(size)}


def run(options: dict[str, Any], write: Callable[[str], Any]) -> dict[str, Any]:
    project, issued = project_create(name=f"bench-recall-{time.time_ns()}")
    logs = Path(tempfile.mkdtemp(prefix="memhq-bench-recall-"))
    bodies = [json.dumps({"user_id": USER_ID, "query": query}).encode() for query in QUERIES]
    medium_bodies = [json.dumps({"user_id": MEDIUM_USER_ID, "query": query}).encode() for query in QUERIES]
    results: dict[str, Any] = {}
    curves: list[Series] = []
    realistic = options["shape"] == "realistic"
    vectors = vectors_for() if realistic else None
    try:
        if vectors is not None:
            others(options, project.pk, vectors, write)
            medium_user(options, project.pk, vectors)
        with gunicorn(target="config.wsgi:application", log=logs / "web.log") as server:
            target = Target(
                url=f"{server.url}/v1/memhq/recall",
                bodies=bodies,
                headers={"Authorization": f"Bearer {issued.plaintext}"},
                rotate=True,  # the client asks every query in turn: the percentiles are over the mix
            )
            inserted = 0
            for size in steps(options["memories"], options["first_step"]):
                started = time.perf_counter()
                grow(options["shape"], project.pk, inserted, size, vectors)
                inserted = size
                settle(write)
                write(f"{size} memories ready ({time.perf_counter() - started:.0f} s); measuring…")
                load = Load(clients=1, seconds=options["seconds"], warmup_s=options["warmup"])
                result = run_load(target, load)
                summary = summarize(result)
                curves.append(Series(f"{size} memories", result.latencies_ns, result.done_s))
                knn = bare_knn(str(project.pk))
                plan = explain(project.pk, USER_ID, QUERIES[0])
                results[str(size)] = {
                    "rows": row_counts(),
                    "server": server_memory(),
                    "recall_http": summary.latency(),
                    "in_process": breakdown(project.pk, USER_ID, QUERIES, options["breakdown_runs"]),
                    "bare_knn_sql": {key: round(value, 2) for key, value in knn.items()},
                    "ratio_p50": ratio(summary.p50_ms, knn["p50_ms"]),
                    "explain_execution_ms": execution_ms(plan),
                    "explain": plan,
                }
                write(
                    f"  http p50 {summary.p50_ms:.1f} / p95 {summary.p95_ms:.1f} ms; bare kNN p50 "
                    f"{knn['p50_ms']:.2f} ms; in process {results[str(size)]['in_process']}"
                )
                if realistic and options["medium_memories"]:
                    medium = run_load(replace(target, bodies=medium_bodies), load)
                    results[str(size)]["medium_user"] = {
                        "memories": options["medium_memories"],
                        "recall_http": summarize(medium).latency(),
                        "in_process": breakdown(
                            project.pk, MEDIUM_USER_ID, QUERIES, options["breakdown_runs"]
                        ),
                    }
                    write(f"  medium user: {json.dumps(results[str(size)]['medium_user'])}")
                if options["replica"]:
                    through = recall_replica.measure(target, load, project.pk, USER_ID, QUERIES, write)
                    results[str(size)]["through_replica"] = through
                    write(f"  through the replica: {json.dumps(through)}")
    finally:
        project.delete()
    document = {
        "memories": f"synthetic, {options['shape']} (tooling/bench/recall_user.py, recall_data.py)",
        "steps": results,
        "targets": {"p50_ms": TARGET_P50_MS, "p95_ms": TARGET_P95_MS},
    }
    write(json.dumps({**document, "steps": _without_plans(results)}, indent=2))
    last = results[str(options["memories"])]
    http = last["recall_http"]
    write(
        f"\nrecall at {options['memories']} memories ({options['shape']}): p50 {http['p50_ms']} ms "
        f"(target ≤ {TARGET_P50_MS}), p95 {http['p95_ms']} ms (target ≤ {TARGET_P95_MS}); "
        f"{last['ratio_p50']}× the bare kNN; shared_buffers {last['server']['shared_buffers']} for a "
        f"{last['server']['database_size']} database"
    )
    if options.get("json"):
        write_json(options["json"], document)
    if options.get("plot"):
        from tooling.bench import plot  # matplotlib is a dev requirement: imported only when asked for

        steps_p50 = Bars(
            f"in process at {options['memories']} memories, p50",
            {step: figures["p50_ms"] for step, figures in last["in_process"].items()},
        )
        title = f"POST /v1/memhq/recall ({options['shape']} user)"
        write(f"plot: {plot.save(options['plot'], title, latencies=curves, charts=[steps_p50])}")
    return document


def _without_plans(results: dict[str, Any]) -> dict[str, Any]:
    """The printed figures (the plans go to --json only)."""
    return {size: {k: v for k, v in step.items() if k != "explain"} for size, step in results.items()}
