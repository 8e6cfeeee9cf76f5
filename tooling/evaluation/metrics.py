"""Retrieval metrics of ``../shared/eval/README.md``: pure functions over ranked id lists."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

MESSAGE_KS = (5, 10, 20)
SESSION_KS = (1, 3, 5)
#: The keys of a per-question row that are not metrics.
ROW_LABELS = frozenset({"qid", "category", "context_tokens"})


def dedupe(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def frac_at(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    return len(set(gold) & set(ranked[:k])) / len(set(gold)) if gold else 0.0


def all_at(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    return 1.0 if gold and set(gold) <= set(ranked[:k]) else 0.0


def any_at(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    return 1.0 if set(gold) & set(ranked[:k]) else 0.0


@dataclass
class Scores:
    """Per-question scores, averaged per category and overall."""

    rows: dict[str, list[dict[str, float]]] = field(default_factory=lambda: defaultdict(list))
    context_tokens: list[int] = field(default_factory=list)
    #: One row per question (qid, category, each metric), for paired comparisons of two runs.
    questions: list[dict[str, float | str]] = field(default_factory=list)

    def add(
        self,
        category: str,
        messages: Sequence[str],
        sessions: Sequence[str],
        gold_messages: Sequence[str],
        gold_sessions: Sequence[str],
        context_tokens: int | None = None,
        qid: str = "",
    ) -> None:
        messages, sessions = dedupe(messages), dedupe(sessions)
        row: dict[str, float] = {}
        for k in MESSAGE_KS:
            row[f"frac@{k}"] = frac_at(messages, gold_messages, k)
            row[f"all@{k}"] = all_at(messages, gold_messages, k)
            row[f"any@{k}"] = any_at(messages, gold_messages, k)
        for k in SESSION_KS:
            row[f"session_all@{k}"] = all_at(sessions, gold_sessions, k)
        self.rows[category].append(row)
        self.questions.append({"qid": qid, "category": category, **row})
        if context_tokens is not None:
            self.context_tokens.append(context_tokens)
            self.questions[-1]["context_tokens"] = context_tokens

    def add_row(self, row: dict[str, float | str]) -> None:
        """Take one question's row as ``add`` wrote it (``questions``), e.g. from another run's scores."""
        metrics = {key: float(value) for key, value in row.items() if key not in ROW_LABELS}
        self.rows[str(row["category"])].append(metrics)
        self.questions.append(dict(row))
        if "context_tokens" in row:
            self.context_tokens.append(int(row["context_tokens"]))

    def table(self) -> dict[str, dict[str, float]]:
        everything = [row for rows in self.rows.values() for row in rows]
        groups = {"all": everything, **dict(sorted(self.rows.items()))}
        result: dict[str, dict[str, float]] = {}
        for name, rows in groups.items():
            if not rows:
                continue
            means = {key: sum(row[key] for row in rows) / len(rows) for key in rows[0]}
            result[name] = {"n": float(len(rows)), **means}
        return result

    def median_context_tokens(self) -> float | None:
        return statistics.median(self.context_tokens) if self.context_tokens else None
