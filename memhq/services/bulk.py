"""Write many rows' columns in one statement: what ``QuerySet.bulk_update`` writes, built for the phases'
big batches.

``bulk_update`` writes ``SET col = CASE WHEN id = 1 THEN … WHEN id = 2 THEN … END`` for every column: each
value becomes a ``Case``/``When`` expression that Django resolves and compiles in Python, and Postgres tests
the branches row by row. For an episode of ~90 long messages (vectors, time mentions) and ~100 claims that
cost ~0.3 s of the ingest of one episode (cProfile of ``memhq_bench episode``: most of it
``resolve_expression``). :func:`rows_update` sends the new values once, as a ``VALUES`` list joined on the
primary key (``UPDATE … FROM (VALUES …) WHERE pk = v.pk``): one placeholder per value, each cast to its
column's type, and no expression tree.

Values are prepared exactly as ``bulk_update`` prepares them (``Field.get_db_prep_save``), and like it this
writes the attributes as they are (no ``pre_save``: ``auto_now`` is not applied).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connections, router
from django.db.models import Field, Model

#: Rows per statement: keeps the placeholders of one statement far below Postgres's 65,535.
BATCH_ROWS = 1000


def rows_update(objects: Sequence[Model], fields: Sequence[str]) -> int:
    """Write ``fields`` of every one of ``objects`` (instances of one model, all saved) to its row; the
    number of rows written."""
    if not objects or not fields:
        return 0
    model = type(objects[0])
    if any(type(obj) is not model for obj in objects):
        raise ValueError("rows_update writes the rows of one model")
    if any(obj.pk is None for obj in objects):
        raise ValueError("rows_update writes saved rows: every object needs its primary key")
    alias = router.db_for_write(model)
    connection = connections[alias]
    changed = [_column(model, name) for name in fields]
    if any(field.primary_key for field in changed):
        raise ValueError("rows_update finds rows by their primary key and never writes it")
    targets = [_column(model, model._meta.pk.name), *changed]
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    casts = ", ".join(f"%s::{field.db_type(connection)}" for field in targets)
    pk, *columns = [quote(str(field.column)) for field in targets]
    names = ", ".join([pk, *columns])
    assignments = ", ".join(f"{column} = v.{column}" for column in columns)
    written = 0
    with connection.cursor() as cursor:
        for start in range(0, len(objects), BATCH_ROWS):
            batch = objects[start : start + BATCH_ROWS]
            rows = ", ".join([f"({casts})"] * len(batch))
            params = [
                field.get_db_prep_save(getattr(obj, field.attname), connection)
                for obj in batch
                for field in targets
            ]
            cursor.execute(
                f"UPDATE {table} SET {assignments} FROM (VALUES {rows}) AS v({names}) "
                f"WHERE {table}.{pk} = v.{pk}",
                params,
            )
            written += cursor.rowcount
    return written


def _column(model: type[Model], name: str) -> Field[Any, Any]:
    """The concrete column field ``name`` of ``model``."""
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or not field.concrete or field.column is None:
        raise ValueError(f"rows_update writes concrete columns, not {name!r}")
    return field
