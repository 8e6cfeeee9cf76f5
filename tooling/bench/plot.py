"""``--plot out.png``: a benchmark's figures as a picture next to its JSON (matplotlib, dev requirement).

Three kinds of panel: latency CDFs (one curve per server or step, log-scaled milliseconds, the p50/p99 marked
in the legend), requests completed per second over the measured window, and horizontal bars (per-phase or
per-step medians). Drawn with the non-interactive Agg backend: no display needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # before pyplot: files only, no display

import matplotlib.pyplot as plt  # after the backend is chosen
import numpy as np

from tooling.bench.series import Bars, Series

NS_PER_MS = 1_000_000
PANEL_W, PANEL_H = 6.4, 4.0


def cdf(ax: plt.Axes, series: Sequence[Series], title: str) -> None:
    for one in series:
        if not one.latencies_ns:
            continue
        values = np.sort(np.asarray(one.latencies_ns, dtype=float) / NS_PER_MS)
        share = np.arange(1, len(values) + 1) / len(values)
        p50, p99 = np.percentile(values, 50), np.percentile(values, 99)
        ax.plot(values, share, label=f"{one.label} (p50 {p50:.1f}, p99 {p99:.1f} ms)")
    ax.set_xscale("log")
    ax.set_xlabel("latency, ms (log)")
    ax.set_ylabel("share of requests")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")


def throughput(ax: plt.Axes, series: Sequence[Series], title: str) -> None:
    for one in series:
        if not one.done_s:
            continue
        whole = max(1, int(max(one.done_s)))  # the last, partial second left out
        counts = np.bincount(np.asarray(one.done_s, dtype=int), minlength=whole + 1)[:whole]
        ax.plot(np.arange(whole), counts, drawstyle="steps-post", label=one.label)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("second of the measured window")
    ax.set_ylabel("requests completed per second")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")


def bars(ax: plt.Axes, chart: Bars) -> None:
    labels = list(chart.values)
    ax.barh(labels, [chart.values[label] for label in labels])
    ax.invert_yaxis()  # first label on top
    ax.set_xlabel(chart.unit)
    ax.set_title(chart.title)
    ax.grid(True, axis="x", alpha=0.3)


def save(
    path: Path,
    title: str,
    *,
    latencies: Sequence[Series] = (),
    rates: Sequence[Series] = (),
    charts: Sequence[Bars] = (),
) -> Path:
    """One PNG with a panel per non-empty part, side by side."""
    panels = [part for part in (("cdf", latencies), ("rate", rates)) if part[1]]
    count = len(panels) + len(charts)
    if count == 0:
        raise ValueError("nothing to plot")
    figure, axes = plt.subplots(1, count, figsize=(PANEL_W * count, PANEL_H), squeeze=False)
    slots = iter(axes[0])
    for kind, series in panels:
        ax = next(slots)
        if kind == "cdf":
            cdf(ax, series, "latency CDF")
        else:
            throughput(ax, series, "throughput over time")
    for chart in charts:
        bars(next(slots), chart)
    figure.suptitle(title)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
