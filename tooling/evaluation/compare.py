"""``memhq_eval --compare BEFORE.json AFTER.json``: is a change better than noise?

Two runs' ``per_question`` rows (written by ``--json``) are paired by ``qid``; only questions both runs
scored count (the rest are reported as counts). For every category and ``all``: the mean of each key metric
before and after, the delta, and a paired bootstrap 95% interval of the delta: the shared questions are
resampled with replacement (``RESAMPLES`` times, seeded, so a rerun prints the same interval) and the
statistic is taken on both runs' values of the same resample. A delta whose interval excludes 0 is flagged
``*``. Median context tokens are compared the same way (difference of medians). Pure: no database.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

KEY_METRICS = ("frac@5", "frac@10", "frac@20", "all@10", "any@10", "session_all@3")
TOKENS = "context_tokens"
RESAMPLES = 2000
SEED = 13
CONFIDENCE = 0.95
ALL = "all"

Statistic = Callable[..., Any]  # numpy reduction taking ``axis``


class CompareError(ValueError):
    """A file is not an evaluation report with per-question rows."""


@dataclass(frozen=True)
class Delta:
    before: float
    after: float
    low: float  # the bootstrap interval of ``delta``
    high: float

    @property
    def delta(self) -> float:
        return self.after - self.before

    @property
    def significant(self) -> bool:
        """Does the interval exclude 0?"""
        return self.low > 0 or self.high < 0


@dataclass(frozen=True)
class CategoryComparison:
    n: int
    metrics: dict[str, Delta]
    tokens: Delta | None  # median context tokens (None when either run lacks them)


@dataclass(frozen=True)
class Comparison:
    categories: dict[str, CategoryComparison]  # "all" first, then by name
    only_before: int
    only_after: int


def question_rows(report: Mapping[str, Any], name: str = "fusion") -> dict[str, dict[str, Any]]:
    """``qid`` → the row of ``name``'s scores in a ``--json`` report."""
    rows = report.get("per_question", {}).get(name) if isinstance(report, Mapping) else None
    if rows is None:
        raise CompareError(f"no per-question rows for {name!r} (write the report again with --json)")
    return {row["qid"]: row for row in rows}


def load_rows(path: Path, name: str = "fusion") -> dict[str, dict[str, Any]]:
    try:
        report = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise CompareError(f"{path}: {error}") from error
    try:
        return question_rows(report, name)
    except CompareError as error:
        raise CompareError(f"{path}: {error}") from error


def paired_interval(
    before: Sequence[float],
    after: Sequence[float],
    statistic: Statistic = np.mean,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> Delta:
    """``statistic`` of each run and the paired bootstrap interval of their difference."""
    first, second = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    if first.shape != second.shape or first.size == 0:
        raise ValueError("paired samples must be non-empty and of equal length")
    picks = np.random.default_rng(seed).integers(0, first.size, size=(resamples, first.size))
    differences = statistic(second[picks], axis=1) - statistic(first[picks], axis=1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(differences, [tail, 100 - tail])
    return Delta(float(statistic(first)), float(statistic(second)), float(low), float(high))


def _category(
    pairs: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]], metrics: Sequence[str], seed: int
) -> CategoryComparison:
    deltas = {
        metric: paired_interval([b[metric] for b, _ in pairs], [a[metric] for _, a in pairs], seed=seed)
        for metric in metrics
    }
    with_tokens = [(b[TOKENS], a[TOKENS]) for b, a in pairs if TOKENS in b and TOKENS in a]
    tokens = (
        paired_interval([b for b, _ in with_tokens], [a for _, a in with_tokens], np.median, seed=seed)
        if with_tokens
        else None
    )
    return CategoryComparison(len(pairs), deltas, tokens)


def compare(
    before: Mapping[str, Mapping[str, Any]],
    after: Mapping[str, Mapping[str, Any]],
    metrics: Sequence[str] = KEY_METRICS,
    *,
    seed: int = SEED,
) -> Comparison:
    """Per category and overall, each metric before → after over the questions both runs scored (a metric
    one of the runs lacks, e.g. from an older report, is left out)."""
    shared = sorted(set(before) & set(after))
    if not shared:
        raise CompareError("the two runs share no question (qid)")
    metrics = [name for name in metrics if all(name in before[q] and name in after[q] for q in shared)]
    if not metrics:
        raise CompareError("the two runs share none of the metrics compared")
    groups: dict[str, list[tuple[Mapping[str, Any], Mapping[str, Any]]]] = {ALL: []}
    for qid in shared:
        pair = (before[qid], after[qid])
        groups[ALL].append(pair)
        groups.setdefault(str(after[qid]["category"]), []).append(pair)
    ordered = [ALL, *sorted(name for name in groups if name != ALL)]
    return Comparison(
        categories={name: _category(groups[name], metrics, seed) for name in ordered},
        only_before=len(set(before) - set(after)),
        only_after=len(set(after) - set(before)),
    )


def _line(label: str, delta: Delta, digits: int) -> str:
    flag = " *" if delta.significant else ""
    return (
        f"  {label:<16}{delta.before:>10.{digits}f}{delta.after:>10.{digits}f}{delta.delta:>+10.{digits}f}"
        f"   [{delta.low:+.{digits}f}, {delta.high:+.{digits}f}]{flag}"
    )


def format_comparison(comparison: Comparison) -> list[str]:
    """The lines ``--compare`` prints."""
    lines = [
        f"paired over shared questions; only in BEFORE: {comparison.only_before}, "
        f"only in AFTER: {comparison.only_after}; {CONFIDENCE:.0%} bootstrap interval of the delta "
        f"({RESAMPLES} resamples), * = excludes 0"
    ]
    for name, category in comparison.categories.items():
        lines += ["", f"{name} (n={category.n})"]
        lines.append(f"  {'metric':<16}{'before':>10}{'after':>10}{'delta':>10}   95% interval")
        lines += [_line(metric, delta, 3) for metric, delta in category.metrics.items()]
        if category.tokens is not None:
            lines.append(_line("median tokens", category.tokens, 0))
    return lines
