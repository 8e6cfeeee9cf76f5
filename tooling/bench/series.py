"""What a benchmark hands to ``--plot`` (tooling/bench/plot.py): plain data, no plotting library needed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class Series:
    """One curve: a label, latencies (ns) and, for throughput, completion times (s into the window)."""

    label: str
    latencies_ns: Sequence[int]
    done_s: Sequence[float] = field(default_factory=list)


@dataclass
class Bars:
    title: str
    values: dict[str, float]  # label → value
    unit: str = "ms"
