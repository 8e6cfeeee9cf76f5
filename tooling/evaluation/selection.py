"""Which conversations an evaluation run uses: by id, the first N, and K-fold splits for honest tuning.

Folds are deterministic: the conversations, in the order they first appear in ``episodes.jsonl`` (after
``--conversations``, if given), are dealt round-robin, so conversation ``j`` (0-based) is in fold
``j % K``. ``--fold I`` (0-based, ``0 <= I < K``) evaluates fold I; with ``--train`` every other fold
instead. Choose parameters with ``--train`` and report them with the same ``--folds K --fold I``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path


class SelectionError(ValueError):
    """The requested conversations do not exist or the fold options do not fit together."""


def conversation_order(path: Path) -> list[str]:
    """The data set's conversation ids in the order they first appear in ``episodes.jsonl``."""
    order: dict[str, None] = {}
    with (path / "episodes.jsonl").open() as lines:
        for line in lines:
            if line.strip():
                order.setdefault(json.loads(line)["conv_id"], None)
    return list(order)


def by_spec(order: Sequence[str], spec: str | None) -> list[str]:
    """``None``: all; a plain integer N: the first N; else a comma-separated list of ids (kept in file
    order)."""
    if spec is None or not spec.strip():
        return list(order)
    spec = spec.strip()
    if spec.isdigit() and spec not in order:
        return list(order[: int(spec)])
    wanted = {part.strip() for part in spec.split(",") if part.strip()}
    unknown = sorted(wanted - set(order))
    if unknown:
        raise SelectionError(f"unknown conversations {', '.join(unknown)}; known: {', '.join(order)}")
    return [conv_id for conv_id in order if conv_id in wanted]


def fold_of(order: Sequence[str], folds: int, fold: int, *, train: bool = False) -> list[str]:
    """Fold ``fold`` of ``folds`` (round-robin over ``order``); with ``train``, every other fold."""
    if folds < 2:
        raise SelectionError("--folds must be at least 2")
    if not 0 <= fold < folds:
        raise SelectionError(f"--fold must be between 0 and {folds - 1}")
    if folds > len(order):
        raise SelectionError(f"--folds {folds} is more than the {len(order)} conversations selected")
    return [conv_id for index, conv_id in enumerate(order) if (index % folds == fold) != train]


def select(
    order: Sequence[str],
    spec: str | None = None,
    folds: int | None = None,
    fold: int | None = None,
    *,
    train: bool = False,
) -> list[str]:
    """The conversations a run evaluates: ``spec`` first, then the fold (both optional)."""
    chosen = by_spec(order, spec)
    if folds is None and fold is None:
        if train:
            raise SelectionError("--train needs --folds and --fold")
        return chosen
    if folds is None or fold is None:
        raise SelectionError("--folds and --fold go together")
    return fold_of(chosen, folds, fold, train=train)
