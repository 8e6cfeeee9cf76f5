"""One query run for many inputs in one statement: ``unnest`` the inputs, then a LATERAL join of the query.

Ingestion asks the same question of many names or claims of one episode ("the nearest entity of this
type", "the memory closest to this claim"). One statement per input made the resolve and reconcile phases
cost a round trip per mention or claim; here every input's answer comes from one statement, each computed
as the query alone would compute it (same plan per input, same LIMIT).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from django.db.models import Model, QuerySet
from django.db.models.expressions import RawSQL

M = TypeVar("M", bound=Model)

#: The alias of the input row inside the LATERAL query: refer to an input column as ``column("name")``.
INPUT = "lateral_input"
_ORDINAL = "lateral_ordinal"


def column(name: str) -> RawSQL:
    """An input column, for use inside the query passed to :func:`for_each` (a filter value, an argument)."""
    return RawSQL(f"{INPUT}.{name}", ())


def for_each(rows: QuerySet[M], inputs: dict[str, tuple[str, Sequence[Any]]]) -> list[list[M]]:
    """``rows`` run once per input row, in one statement: the answers in the inputs' order, each in the
    query's own order. ``inputs``: column name → (SQL type, one value per input row), all of one length;
    ``rows`` refers to them with :func:`column`. Annotations of ``rows`` come back as attributes."""
    statement, arguments, count = lateral_sql(rows, inputs)
    found: list[list[M]] = [[] for _ in range(count)]
    if count:
        for row in rows.model._default_manager.raw(statement, arguments):
            found[getattr(row, _ORDINAL)].append(row)
    return found


def lateral_sql(
    rows: QuerySet[M], inputs: dict[str, tuple[str, Sequence[Any]]]
) -> tuple[str, list[Any], int]:
    """The statement of :func:`for_each`, its parameters and the number of input rows."""
    lengths = {len(values) for _, values in inputs.values()}
    if len(lengths) != 1:
        raise ValueError(f"every input column needs one value per input row, got lengths {sorted(lengths)}")
    count = lengths.pop()
    sql, params = rows.query.sql_with_params()
    names = ", ".join([_ORDINAL, *inputs])
    arrays = ", ".join(["%s::int[]", *(f"%s::{sql_type}[]" for sql_type, _ in inputs.values())])
    statement = (
        f"SELECT {INPUT}.{_ORDINAL} AS {_ORDINAL}, answer.* FROM unnest({arrays}) AS {INPUT}({names})"
        f" CROSS JOIN LATERAL ({sql}) AS answer"
    )
    arguments = [list(range(count)), *(list(values) for _, values in inputs.values()), *params]
    return statement, arguments, count
