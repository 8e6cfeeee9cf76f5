"""The vector column type, written to PostgreSQL as nine significant digits a number.

Django sends parameters as SQL literals (client-side binding), so a vector goes as text. pgvector's own
field writes each float32 as the shortest text of the double it widens to (17 digits): ~150 µs and 8 KB for
a 384-dimension vector, ~120 ms of a long episode's phases (~800 vectors). ``%.9g`` is the shortest that
round-trips every float32 (IEEE 754), so PostgreSQL stores the same value: ~50 µs and 4.8 KB.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from pgvector import Vector
from pgvector.django import VectorField as PgVectorField

#: Where migrations find the column's type: this field writes the same column as pgvector's.
MIGRATION_PATH = "pgvector.django.vector.VectorField"


@functools.cache
def _template(dimensions: int) -> str:
    return "[" + ",".join(["%.9g"] * dimensions) + "]"


def vector_literal(value: Any) -> str | None:
    """``value`` (a list, a numpy array, a ``pgvector.Vector`` or None) as pgvector's text input, each number
    first rounded to float32 (as the column stores it; a float64 written as 9 digits would otherwise round
    twice)."""
    if value is None:
        return None
    array = value.to_numpy() if isinstance(value, Vector) else np.asarray(value, dtype=np.float32)
    if array.ndim != 1:
        raise ValueError("expected ndim to be 1")
    numbers = array.tolist()  # float32 values, widened exactly to Python floats
    return _template(len(numbers)) % tuple(numbers)


class VectorField(PgVectorField):
    """pgvector's field with a faster writer (:func:`vector_literal`); read as pgvector reads it."""

    def get_prep_value(self, value: Any) -> str | None:
        return vector_literal(value)

    def deconstruct(self) -> Any:
        name, _, args, kwargs = super().deconstruct()
        return name, MIGRATION_PATH, args, kwargs
