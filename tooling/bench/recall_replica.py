"""``memhq_bench recall --replica``: the same recall load against a second web whose reads go to a streaming
replica of the benchmark's database (config/streaming_replica.py), in the same run as the primary-only one.

Reported: the replica web's HTTP percentiles next to the primary-only ones (one 2-core box runs both
servers, so this shows the cost of routing, not the throughput a second machine adds), the routing decision's
own cost in process (``routing.choose``: the cached replica state, one Redis ``MGET``), whether the replica
answered the same items as the primary for every query, and the scans the replica's statistics counted.
"""

from __future__ import annotations

import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from django.db import connection, connections
from django.utils import timezone

from config.streaming_replica import Replica, streaming_replica
from memhq.replicas import freshness, routing
from memhq.replicas.pool import POOL, lsn_int
from retrieval.recall import recall
from tooling.bench.http import Load, Target, run_load
from tooling.bench.report import percentile, summarize
from tooling.bench.server import gunicorn

ALIAS = "replica1"
CHOOSE_RUNS = 2000
CATCH_UP_S = 60.0
STATS_FLUSH_S = 12.0  # an idle backend flushes its statistics within 10 s
NS_PER_MS = 1_000_000
SCANS = (
    "SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0) FROM pg_stat_user_tables "
    "WHERE relname LIKE 'memhq_%'"
)


def replica_url(replica: Replica) -> str:
    primary = replica.primary
    return f"postgresql://{primary['USER'] or 'postgres'}@/{primary['NAME']}?host={replica.socket_dir}"


def caught_up(replica: Replica) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text")
        target = lsn_int(cursor.fetchone()[0])
    deadline = time.monotonic() + CATCH_UP_S
    while lsn_int(replica.sql("SELECT pg_last_wal_replay_lsn()")) < target:
        if time.monotonic() > deadline:
            raise RuntimeError("the replica did not catch up")
        time.sleep(0.05)


@contextmanager
def in_process(replica: Replica) -> Iterator[None]:
    """This process reads through the replica too (for the routing cost and the answers compared)."""
    connections.settings[ALIAS] = replica.settings()
    POOL.forget()
    try:
        yield
    finally:
        connections[ALIAS].close()
        del connections[ALIAS]
        del connections.settings[ALIAS]
        POOL.forget()


def choose_cost(project_id: uuid.UUID, user_id: str) -> dict[str, Any]:
    scopes = freshness.keys(project_id, user_id=user_id)[-1:]
    timings, targets = [], set()
    for _ in range(CHOOSE_RUNS):
        started = time.perf_counter_ns()
        alias, _reason = routing.choose(scopes)
        timings.append(time.perf_counter_ns() - started)
        targets.add(alias)
    timings.sort()
    return {
        **{f"p{pct}_ms": round(percentile(timings, pct) / NS_PER_MS, 3) for pct in (50, 95, 99)},
        "chose": sorted(targets),
    }


def _recall_on(project_id: uuid.UUID, user_id: str, text: str, as_of: datetime) -> tuple[str, list[str]]:
    result = recall(project_id=project_id, user_id=user_id, query_text=text, as_of=as_of)
    return routing.current(), [item.id for item in result.items]


def same_answers(project_id: uuid.UUID, user_id: str, queries: tuple[str, ...]) -> dict[str, Any]:
    """Recall of each query on the primary, then through routing (which must pick the replica)."""
    as_of = timezone.now()
    scopes = freshness.keys(project_id, user_id=user_id)[-1:]
    differing = []
    for text in queries:
        _, on_primary = _recall_on(project_id, user_id, text, as_of)
        alias, on_replica = routing.read(partial(_recall_on, project_id, user_id, text, as_of), scopes)
        if alias != ALIAS or on_replica != on_primary:
            differing.append(text)
    return {"queries": len(queries), "differing": differing}


def scans_after(replica: Replica, before: int) -> int:
    deadline = time.monotonic() + STATS_FLUSH_S
    while (now := int(replica.sql(SCANS))) <= before and time.monotonic() < deadline:
        time.sleep(0.5)
    return now - before


def measure(
    target: Target,
    load: Load,
    project_id: uuid.UUID,
    user_id: str,
    queries: tuple[str, ...],
    write: Callable[[str], Any],
) -> dict[str, Any]:
    directory = Path(tempfile.mkdtemp(prefix="memhq-bench-replica-"))
    started = time.perf_counter()
    with streaming_replica(dict(connection.settings_dict), directory) as replica:
        caught_up(replica)
        write(f"  replica ready ({time.perf_counter() - started:.0f} s); measuring through it…")
        with in_process(replica):
            choose = choose_cost(project_id, user_id)
            answers = same_answers(project_id, user_id, queries)
        before = int(replica.sql(SCANS))
        env = {"DATABASE_REPLICA_URLS": replica_url(replica)}
        with gunicorn(target="config.wsgi:application", log=directory / "web.log", extra_env=env) as web:
            result = run_load(replace(target, url=f"{web.url}/v1/memhq/recall"), load)
        summary = summarize(result)
        scanned = scans_after(replica, before)
    return {
        "recall_http": summary.latency(),
        "routing_choose": choose,
        "same_answers": answers,
        "replica_scans": scanned,
    }
