"""The signal rows recall's ``fetch`` returned for every question of a run, saved for fast re-scoring.

``memhq_eval --save-rows FILE`` writes them; ``--from-rows FILE`` re-runs fusion (``recall.assemble``) on
them with the current (or ``--set``) fusion settings, without a database or an ingest, so fusion parameters
are tuned in seconds. The file also holds what scoring needs: the questions (with their gold ids), our
episode id → the data set's episode id, and the conversations in file order (for ``--folds``).

Format: a gzip-compressed pickle (rows carry datetimes, UUIDs and arrays; pickle round-trips them exactly).
A question's rows are kept packed, as one column tuple and one value tuple per row (fetch's rows come from
one statement, so they share their columns), and equal strings (a message's text in many questions' rows)
are stored once: a run's rows stay a fraction of their size as dicts. Load only files you wrote:
unpickling runs code named in the file.
"""

from __future__ import annotations

import gzip
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tooling.evaluation.dataset import EvalQuery

FORMAT = "memhq-eval-rows/1"

#: One question's rows: the column names, then each row's values in that order.
Packed = tuple[tuple[str, ...], list[tuple[Any, ...]]]


class RowsFileError(ValueError):
    """The file is not a rows file this version of memhq_eval wrote."""


def _shared(value: Any, strings: dict[str, str]) -> Any:
    if isinstance(value, str):
        return strings.setdefault(value, value)
    if isinstance(value, list):
        return [_shared(element, strings) for element in value]
    return value


def pack(rows: Sequence[dict[str, Any]], strings: dict[str, str] | None = None) -> Packed:
    """``rows`` (all with the same columns) packed; ``strings`` shares equal strings across calls."""
    strings = {} if strings is None else strings
    columns = tuple(rows[0]) if rows else ()
    values = []
    for row in rows:
        if tuple(row) != columns:
            raise ValueError("the rows of one question must share their columns")
        values.append(tuple(_shared(value, strings) for value in row.values()))
    return tuple(strings.setdefault(column, column) for column in columns), values


def unpack(packed: Packed) -> list[dict[str, Any]]:
    columns, values = packed
    return [dict(zip(columns, row, strict=True)) for row in values]


@dataclass
class SavedRows:
    data: str  # the data set's folder, for the record
    conversations: list[str]  # those ingested, in file order
    queries: list[EvalQuery]
    episode_ids: dict[str, str]  # our episode uuid → the data set's episode id
    rows: dict[str, Packed] = field(default_factory=dict)  # qid → what fetch() returned, packed

    def question_rows(self, qid: str) -> list[dict[str, Any]]:
        return unpack(self.rows[qid])


def write_rows(path: Path, saved: SavedRows) -> None:
    payload = {
        "format": FORMAT,
        "data": saved.data,
        "conversations": saved.conversations,
        "queries": saved.queries,
        "episode_ids": saved.episode_ids,
        "rows": saved.rows,
    }
    with gzip.open(path, "wb", compresslevel=3) as out:
        pickle.dump(payload, out, protocol=pickle.HIGHEST_PROTOCOL)


def read_rows(path: Path) -> SavedRows:
    try:
        with gzip.open(path, "rb") as source:
            payload = pickle.load(source)  # a file this command wrote (module doc)
    except (OSError, pickle.UnpicklingError, EOFError) as error:
        raise RowsFileError(f"{path} is not a memhq_eval rows file: {error}") from error
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise RowsFileError(f"{path} is not a {FORMAT} file (write it again with --save-rows)")
    return SavedRows(
        data=payload["data"],
        conversations=payload["conversations"],
        queries=payload["queries"],
        episode_ids=payload["episode_ids"],
        rows=payload["rows"],
    )
