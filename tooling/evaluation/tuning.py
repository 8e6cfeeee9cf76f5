"""``memhq_eval --from-rows FILE --folds K --grid NAME=V1,V2 ...``: cross-validated fusion tuning.

Every combination of the grid's values (applied over the current settings, as ``--set`` does) scores every
saved question once. Then for each fold I, the combination with the best mean ``objective`` (default
frac@10, over all questions) on the other folds is chosen (ties: the first in grid order) and scored on
fold I. The held-out rows of all folds, pooled, are the cross-validated figure: each question is scored
with parameters chosen without its conversation. The in-sample best (chosen on everything) is reported
beside it, to show how much tuning flatters.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from retrieval.config import RetrievalConfig
from tooling.evaluation import overrides
from tooling.evaluation.metrics import Scores
from tooling.evaluation.replay import replay
from tooling.evaluation.rows import SavedRows
from tooling.evaluation.runner import FUSION
from tooling.evaluation.selection import fold_of

Row = dict[str, float | str]


@dataclass
class Candidate:
    assignments: tuple[str, ...]  # NAME=VALUE, as --set takes them
    config: RetrievalConfig
    rows: dict[str, Row]  # qid → the question's scores

    def mean(self, qids: Sequence[str], objective: str) -> float:
        return sum(float(self.rows[qid][objective]) for qid in qids) / len(qids) if qids else 0.0


@dataclass
class FoldChoice:
    fold: int
    held_out: list[str]  # conversations
    assignments: tuple[str, ...]
    train: float  # the objective on the other folds
    test: float  # on this fold


@dataclass
class CrossValidation:
    objective: str
    choices: list[FoldChoice]
    scores: Scores  # the pooled held-out rows
    in_sample: tuple[str, ...]  # the combination chosen on every conversation
    in_sample_score: float  # its objective on every conversation (flattered: chosen there)


def combinations(grid: Sequence[str]) -> list[tuple[str, ...]]:
    """``["a=1,2", "b=3"]`` → ``[("a=1", "b=3"), ("a=2", "b=3")]`` (values split on commas)."""
    axes: list[list[str]] = []
    for entry in grid:
        name, equals, values = entry.partition("=")
        choices = [value.strip() for value in values.split(",") if value.strip()]
        if not equals or not name.strip() or not choices:
            raise overrides.OverrideError(f"{entry!r}: write NAME=VALUE1,VALUE2,...")
        axes.append([f"{name.strip()}={value}" for value in choices])
    return list(itertools.product(*axes))


def candidates(
    saved: SavedRows, conversations: Sequence[str], base: RetrievalConfig, grid: Sequence[str]
) -> list[Candidate]:
    result = []
    for assignments in combinations(grid):
        config = overrides.apply(base, assignments)
        report = replay(saved, set(conversations), signals=False, config=config)
        rows = {str(row["qid"]): row for row in report.scores[FUSION].questions}
        result.append(Candidate(assignments, config, rows))
    return result


def _best(options: Sequence[Candidate], qids: Sequence[str], objective: str) -> Candidate:
    return max(options, key=lambda option: option.mean(qids, objective))  # max keeps the first of ties


def cross_validate(
    saved: SavedRows,
    conversations: Sequence[str],
    options: Sequence[Candidate],
    folds: int,
    objective: str = "frac@10",
) -> CrossValidation:
    """Choose on the other folds, score on each fold; pool the held-out rows."""
    if not options:
        raise overrides.OverrideError("the grid is empty")
    if objective not in next(iter(options[0].rows.values()), {objective: 0}):
        raise overrides.OverrideError(f"{objective!r} is not a metric of the rows")
    conversation_of = {query.qid: query.conv_id for query in saved.queries}
    qids = list(options[0].rows)

    def questions(held: Sequence[str]) -> list[str]:
        return [qid for qid in qids if conversation_of[qid] in held]

    pooled = Scores()
    choices = []
    for fold in range(folds):
        test, train = fold_of(conversations, folds, fold), fold_of(conversations, folds, fold, train=True)
        best = _best(options, questions(train), objective)
        for qid in questions(test):
            pooled.add_row(best.rows[qid])
        on_train, on_test = best.mean(questions(train), objective), best.mean(questions(test), objective)
        choices.append(FoldChoice(fold, test, best.assignments, on_train, on_test))
    overall = _best(options, qids, objective)
    return CrossValidation(objective, choices, pooled, overall.assignments, overall.mean(qids, objective))


def describe(result: CrossValidation) -> list[str]:
    """What --grid prints before the pooled table."""
    lines = [
        f"fold {choice.fold} (held out: {', '.join(choice.held_out)}): chose {' '.join(choice.assignments)} "
        f"({result.objective} {choice.train:.3f} on the other folds, {choice.test:.3f} held out)"
        for choice in result.choices
    ]
    lines.append(
        f"in-sample best: {' '.join(result.in_sample)} ({result.objective} {result.in_sample_score:.3f}); "
        "the figures below are the held-out rows of every fold, pooled (cross-validated)"
    )
    return lines


def as_json(result: CrossValidation, grid: Sequence[str]) -> dict[str, Any]:
    return {
        "objective": result.objective,
        "grid": list(grid),
        "folds": [asdict(choice) for choice in result.choices],
        "in_sample": {"chose": list(result.in_sample), "score": result.in_sample_score},
    }
