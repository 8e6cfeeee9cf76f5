"""Figures from a load run: percentiles, the printed table and the JSON document."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tooling.bench.cpu import OTHER
from tooling.bench.http import LoadResult

NS_PER_MS = 1_000_000
US_PER_S = 1_000_000
MS_PER_S = 1000
PERCENTILES = (50, 95, 99)
MAX_ERROR_KINDS = 5
NOISE_SHARE_PERCENT = 10.0  # above this, CPU used by unrelated processes makes the figures unreliable


def percentile(sorted_values: Sequence[int], pct: float) -> int:
    """Nearest-rank percentile of an ascending sequence (0 when it is empty)."""
    if not sorted_values:
        return 0
    rank = max(1, math.ceil(pct / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


@dataclass(frozen=True)
class Summary:
    mode: str
    clients: int
    rate: float | None
    seconds: float
    requests: int
    errors: int
    error_kinds: dict[str, int]
    rps: float
    mean_ms: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    littles_law_ms: float  # clients / throughput: what closed-loop latency must be, whatever the server
    client_cpu_us_per_request: float
    client_cpu_percent_of_one_core: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def latency(self) -> dict[str, Any]:
        """The percentiles (ms, 2 decimals), requests and errors: what the recall benchmarks print."""
        rounded = {f"p{pct}_ms": round(getattr(self, f"p{pct}_ms"), 2) for pct in (50, 95, 99)}
        return {**rounded, "requests": self.requests, "errors": self.errors}


def summarize(result: LoadResult) -> Summary:
    latencies = sorted(result.latencies_ns)
    rps = result.ok / result.window_s if result.window_s else 0.0
    pcts = {pct: percentile(latencies, pct) / NS_PER_MS for pct in PERCENTILES}
    return Summary(
        mode=result.load.mode,
        clients=result.load.clients,
        rate=result.load.rate,
        seconds=result.window_s,
        requests=result.ok + result.error_count,
        errors=result.error_count,
        error_kinds=dict(result.errors.most_common(MAX_ERROR_KINDS)),
        rps=rps,
        mean_ms=(sum(latencies) / len(latencies) / NS_PER_MS) if latencies else 0.0,
        p50_ms=pcts[50],
        p95_ms=pcts[95],
        p99_ms=pcts[99],
        max_ms=(latencies[-1] / NS_PER_MS) if latencies else 0.0,
        littles_law_ms=(result.load.clients / rps * 1000) if rps else 0.0,
        client_cpu_us_per_request=result.client_cpu_s / max(1, result.requests_total) * US_PER_S,
        client_cpu_percent_of_one_core=100 * result.client_cpu_s / result.elapsed_s
        if result.elapsed_s
        else 0.0,
    )


def ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


def format_summary(name: str, summary: Summary) -> str:
    mode = "closed loop" if summary.rate is None else f"open loop at {summary.rate:g} req/s"
    lines = [
        f"{name}: {mode}, {summary.clients} connections, {summary.seconds:g} s measured",
        f"  requests/s {summary.rps:9.1f}    requests {summary.requests}    errors {summary.errors}",
        f"  latency ms  p50 {summary.p50_ms:7.2f}   p95 {summary.p95_ms:7.2f}   p99 {summary.p99_ms:7.2f}"
        f"   max {summary.max_ms:7.2f}   mean {summary.mean_ms:7.2f}",
        f"  client overhead: {summary.client_cpu_us_per_request:.0f} µs CPU per request,"
        f" {summary.client_cpu_percent_of_one_core:.0f}% of one core",
    ]
    if summary.rate is None:
        lines.append(
            f"  (Little's law: {summary.clients} clients / {summary.rps:.0f} req/s"
            f" = {summary.littles_law_ms:.1f} ms mean latency, whatever one request costs)"
        )
    if summary.error_kinds:
        lines.append(
            "  error kinds: " + ", ".join(f"{kind} ×{count}" for kind, count in summary.error_kinds.items())
        )
    return "\n".join(lines)


def format_cpu(cpu: dict[str, float], requests: int, seconds: float, cores: int) -> str:
    """CPU ms per request for each process group, and the share of the machine it used."""
    if not cpu or not requests or not seconds:
        return ""
    share = 100 / MS_PER_S / seconds / cores  # CPU ms over the window → % of the machine
    rows = [f"    {group:<24} {ms / requests:6.3f} ms   {ms * share:5.1f}%" for group, ms in cpu.items()]
    total = sum(cpu.values())
    rows.append(f"    {'total':<24} {total / requests:6.3f} ms   {total * share:5.1f}%")
    noise = cpu.get(OTHER, 0.0) * share
    if noise > NOISE_SHARE_PERCENT:
        rows.append(f"  ! unrelated processes used {noise:.0f}% of the machine: figures are perturbed")
    return f"  CPU per request, and share of the {cores} cores, over the window:\n" + "\n".join(rows)


def write_json(path: Path, document: dict[str, Any]) -> None:
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
