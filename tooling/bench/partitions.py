"""``memhq_bench partitions``: recall's statement on today's tables and on the same rows hash-partitioned by
project (PostgreSQL declarative partitioning), in the same run (docs/partitioning.md).

Builds ``--projects`` realistic users (tooling/bench/recall_user.py), one per project, plus one big user (past
the exact-search threshold, so the HNSW branch runs) in the first project; copies memories, messages and
passages into schema ``memhq_part`` as ``PARTITION BY HASH (project_id)`` tables with today's indexes
(unique ones made plain: a partitioned table's unique index must contain the partition key). Recall's
statement then runs unchanged with ``search_path = memhq_part, public``. Reported per user: the statement's
in-process p50 (prepared, as recall runs it; plan cache on ``auto`` and forced ``generic``), and in its
``EXPLAIN ANALYZE`` how many partitions were scanned and how many were pruned ("never executed"), with the
HNSW branch's project test as today (``coalesce``, which no partition pruning can use) and as a plain
equality.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from argparse import ArgumentParser
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.db import connection
from django.utils import timezone

from memhq.ai.provider import get_embedder
from memhq.services.tenancy import project_create
from retrieval import query, signals
from tooling.bench.recall_breakdown import explain
from tooling.bench.recall_data import QUERIES, SEED
from tooling.bench.recall_user import Shape, VectorIndexesDropped, build_user, vectors_for
from tooling.bench.report import percentile, write_json

HELP = "recall's statement on today's tables vs the same rows partitioned by project"
SCHEMA = "memhq_part"
TABLES = ("memhq_memory", "memhq_episodemessage", "memhq_passage")
RUNS = 60
INDEXES = "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = %s"
NS_PER_MS = 1_000_000


def add_arguments(parser: ArgumentParser) -> None:
    parser.add_argument("--projects", type=int, default=8, help="projects, one realistic user each")
    parser.add_argument("--memories", type=int, default=1500, help="memories of each of those users")
    parser.add_argument("--big", type=int, default=8000, help="memories of the big user in the first project")
    parser.add_argument("--partitions", type=int, default=8, help="hash partitions per table")
    parser.add_argument("--json", type=Path, help="also write the figures and the plans to this file")


def _columns(cursor: Any, table: str) -> list[str]:
    cursor.execute(
        "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped"
        " AND attgenerated = '' ORDER BY attnum",
        [f"public.{table}"],
    )
    return [f'"{row[0]}"' for row in cursor.fetchall()]


def partition(partitions: int, write: Callable[[str], Any]) -> None:
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        cursor.execute(f"CREATE SCHEMA {SCHEMA}")
        cursor.execute("SET maintenance_work_mem = '1GB'")
        for table in TABLES:
            cursor.execute(
                f"CREATE TABLE {SCHEMA}.{table} (LIKE public.{table} INCLUDING DEFAULTS INCLUDING GENERATED)"
                " PARTITION BY HASH (project_id)"
            )
            for number in range(partitions):
                cursor.execute(
                    f"CREATE TABLE {SCHEMA}.{table}_p{number} PARTITION OF {SCHEMA}.{table}"
                    f" FOR VALUES WITH (MODULUS {partitions}, REMAINDER {number})"
                )
            columns = ", ".join(_columns(cursor, table))
            cursor.execute(f"INSERT INTO {SCHEMA}.{table} ({columns}) SELECT {columns} FROM public.{table}")
            cursor.execute(INDEXES, [table])
            for (definition,) in cursor.fetchall():
                moved = definition.replace(f" ON public.{table} ", f" ON {SCHEMA}.{table} ")
                cursor.execute(moved.replace("CREATE UNIQUE INDEX", "CREATE INDEX"))
            cursor.execute(f"ANALYZE {SCHEMA}.{table}")
        cursor.execute("RESET maintenance_work_mem")
    write(f"partitioned copies ready ({time.perf_counter() - started:.0f} s)")


def _time(project_id: uuid.UUID, user_id: str, generic: bool) -> float:
    vectors = get_embedder().embed(list(QUERIES))
    with connection.cursor() as cursor:
        cursor.execute(f"SET plan_cache_mode = {'force_generic_plan' if generic else 'auto'}")
    timings = []
    for run in range(RUNS):
        turn = run % len(QUERIES)
        context = query.QueryContext(project_id, user_id, QUERIES[turn], vectors[turn], timezone.now(), False)
        started = time.perf_counter_ns()
        query.run(context)
        timings.append(time.perf_counter_ns() - started)
    return round(percentile(sorted(timings[len(QUERIES) :]), 50) / NS_PER_MS, 2)


def _pruning(plan: list[str]) -> dict[str, int]:
    scanned = [line for line in plan if re.search(r"_p\d+\b", line)]
    return {
        "partition_scans": sum(1 for line in scanned if "never executed" not in line),
        "partition_scans_pruned": sum(1 for line in scanned if "never executed" in line),
    }


def _prunable(alias: str) -> str:
    """The HNSW branch's owner test with the project as a plain equality (prunable), the user as today."""
    return (
        f"{alias}.project_id = (SELECT project_id FROM q)"
        f" AND coalesce({alias}.user_id = (SELECT user_id FROM q), false)"
    )


def measure(project_id: uuid.UUID, user_id: str, layout: str, variant: str) -> dict[str, Any]:
    """Recall's statement on ``layout`` with the HNSW branch's project test as today (``coalesce``) or
    prunable (``equality``)."""
    original = signals._owned_by_user_unindexed
    if variant == "equality":
        signals._owned_by_user_unindexed = _prunable
    query.statement.cache_clear()
    try:
        return _measure(project_id, user_id, layout)
    finally:
        signals._owned_by_user_unindexed = original
        query.statement.cache_clear()


def _measure(project_id: uuid.UUID, user_id: str, layout: str) -> dict[str, Any]:
    connection.close()  # a fresh connection: its own prepared statements and search_path
    with connection.cursor() as cursor:
        partitioned = layout == "partitioned"
        cursor.execute(f"SET search_path = {SCHEMA}, public" if partitioned else "RESET search_path")
    figures: dict[str, Any] = {
        "sql_p50_ms_auto": _time(project_id, user_id, generic=False),
        "sql_p50_ms_generic": _time(project_id, user_id, generic=True),
    }
    plan = explain(project_id, user_id, QUERIES[0])
    execution = next((line for line in reversed(plan) if line.startswith("Execution Time:")), "")
    figures.update(_pruning(plan), explain_execution=execution, explain=plan)
    connection.close()
    return figures


def run(options: dict[str, Any], write: Callable[[str], Any]) -> dict[str, Any]:
    vectors = vectors_for()
    stamp = time.time_ns()
    projects = [project_create(name=f"bench-part-{n}-{stamp}")[0] for n in range(options["projects"])]
    results: dict[str, Any] = {}
    try:
        started = time.perf_counter()
        with VectorIndexesDropped():
            for number, project in enumerate(projects):
                build_user(project.pk, "u", Shape(options["memories"]), vectors, seed=SEED + number)
            build_user(projects[0].pk, "big", Shape(options["big"]), vectors, seed=SEED - 1)
        write(f"users ready ({time.perf_counter() - started:.0f} s)")
        partition(options["partitions"], write)
        with connection.cursor() as cursor:
            for table in TABLES:
                cursor.execute(f"VACUUM ANALYZE public.{table}")
        for label, user in (("small user", (projects[-1].pk, "u")), ("big user", (projects[0].pk, "big"))):
            results[label] = {
                f"{layout}, {variant}": measure(*user, layout, variant)
                for layout in ("plain", "partitioned")
                for variant in ("coalesce", "equality")
            }
            printed = {
                key: {k: v for k, v in got.items() if k != "explain"} for key, got in results[label].items()
            }
            write(f"{label}: {json.dumps(printed, indent=1)}")
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        for project in projects:
            project.delete()
    document = {"partitions": options["partitions"], "projects": options["projects"], "results": results}
    if options.get("json"):
        write_json(options["json"], document)
    return document
