"""Where one recall's time goes, in process: the query's embeddings (with the people lookup before them), the
one SQL statement of every signal, fusion and rendering — and the statement's ``EXPLAIN (ANALYZE, BUFFERS)``.

The steps are ``retrieval.recall``'s own functions, called one by one with a clock around each.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from django.utils import timezone

from retrieval import config as retrieval_config
from retrieval import query
from retrieval.dense_query import dense_text
from retrieval.query_vectors import query_vectors
from retrieval.recall import DEFAULT_LIMIT, DEFAULT_MAX_TOKENS, assemble
from tooling.bench.report import percentile

NS_PER_MS = 1_000_000
STEPS = ("embed", "sql", "fuse_and_render")


def breakdown(project_id: uuid.UUID, user_id: str, queries: tuple[str, ...], runs: int) -> dict[str, Any]:
    """p50/p95 per step over ``runs`` recalls (the queries in turn)."""
    timings: dict[str, list[int]] = {step: [] for step in (*STEPS, "total")}
    config = retrieval_config.current()
    for run in range(runs):
        text = queries[run % len(queries)]
        as_of = timezone.now()
        started = time.perf_counter_ns()
        vector, second = query_vectors(dense_text(project_id, user_id, text, config))
        embedded_at = time.perf_counter_ns()
        rows = query.run(query.QueryContext(project_id, user_id, text, vector, as_of, False, second))
        fetched_at = time.perf_counter_ns()
        assemble(
            rows, as_of=as_of, limit=DEFAULT_LIMIT, max_tokens=DEFAULT_MAX_TOKENS, kinds=None, query_text=text
        )
        done = time.perf_counter_ns()
        for step, span in zip(
            (*STEPS, "total"),
            (embedded_at - started, fetched_at - embedded_at, done - fetched_at, done - started),
            strict=True,
        ):
            timings[step].append(span)
    return {
        step: {f"p{pct}_ms": round(percentile(sorted(values), pct) / NS_PER_MS, 2) for pct in (50, 95)}
        for step, values in timings.items()
    }


def explain(project_id: uuid.UUID, user_id: str, text: str) -> list[str]:
    """``EXPLAIN (ANALYZE, BUFFERS)`` of recall's statement for ``text``, one line per plan line."""
    vector, second = query_vectors(text)
    context = query.QueryContext(project_id, user_id, text, vector, timezone.now(), False, second)
    sql, signal_params = query.statement()
    params = [*query.parameters(context, None), *signal_params]
    with query.prepared_cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", params)
        return [str(row[0]) for row in cursor.fetchall()]


def execution_ms(plan: list[str]) -> float | None:
    line = next((line for line in reversed(plan) if line.startswith("Execution Time:")), None)
    return float(line.split()[2]) if line else None
