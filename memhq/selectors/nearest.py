"""Nearest rows of ONE user by embedding, exact for a user with few rows.

The HNSW indexes span every user of a table. A kNN filtered to a small user among many walks the graph
through other users' rows: slow, and once pgvector's ``hnsw.max_scan_tuples`` is reached it returns what it
found, possibly nothing, so "is there already a memory like this?" would wrongly answer no. A user with at
most ``EXACT_KNN_MAX_ROWS`` rows is compared with every one of their rows instead (read through the
per-user btree index, ~1 ms per 2,000 rows); above that, the HNSW index with iterative scans. Recall's SQL
weighs the user's share of the table as well (``retrieval.signals.sizes_cte``: one query vector, where the
phases here compare many vectors in one statement, each exact search reading every row again).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar, cast

import numpy as np
from django.db.models import FloatField, Model, QuerySet, Value
from django.db.models.expressions import Combinable, CombinedExpression, RawSQL
from pgvector.django import CosineDistance

from memhq.models.vectors import vector_literal
from memhq.selectors.lateral import column, for_each

EXACT_KNN_MAX_ROWS = 5000

M = TypeVar("M", bound=Model)


def few_rows(user_rows: QuerySet[M]) -> bool:
    """Does ``user_rows`` (one user's rows of a table) hold at most EXACT_KNN_MAX_ROWS? Counts at most one
    more than that."""
    return user_rows.order_by().values("pk")[: EXACT_KNN_MAX_ROWS + 1].count() <= EXACT_KNN_MAX_ROWS


def cosine_distance(vector: np.ndarray | RawSQL, *, exact: bool) -> Combinable:
    """The cosine distance of ``embedding`` to ``vector``, to annotate and order by. ``exact`` (see
    :func:`few_rows`): an expression the HNSW index cannot serve, so every row in the filter is compared."""
    distance = CosineDistance(
        "embedding", vector if isinstance(vector, RawSQL) else Value(vector_literal(vector))
    )
    return CombinedExpression(distance, "+", Value(0.0), output_field=FloatField()) if exact else distance


def nearest_each(
    rows: QuerySet[M], vectors: Sequence[np.ndarray], *, exact: bool, depth: int
) -> list[list[tuple[M, float]]]:
    """For each of ``vectors``, the ``depth`` rows of ``rows`` nearest to it with their cosine distances,
    nearest first, all in one statement (:func:`memhq.selectors.lateral.for_each`). ``exact`` as in
    :func:`cosine_distance`; the rows come as ``rows`` would give them (``defer`` is honoured)."""
    nearest = (
        rows.exclude(embedding__isnull=True)
        .annotate(distance=cosine_distance(column("vector"), exact=exact))
        .order_by("distance")[:depth]
    )
    texts = [vector_literal(vector) for vector in vectors]
    answers = for_each(cast("QuerySet[M]", nearest), {"vector": ("vector", texts)})
    return [[(row, float(getattr(row, "distance"))) for row in answer] for answer in answers]  # noqa: B009
