"""The signal rows recall's ``fetch`` returned for every question of a run, saved for fast re-scoring.

``memhq_eval --save-rows FILE`` writes them; ``--from-rows FILE`` re-runs fusion (``recall.assemble``) on
them with the current (or ``--set``) fusion settings, without a database or an ingest, so fusion parameters
are tuned in seconds. The file also holds what scoring needs: the questions (with their gold ids), our
episode id → the data set's episode id, and the conversations in file order (for ``--folds``).

Format: a gzip-compressed pickle (rows carry datetimes, UUIDs and arrays; pickle round-trips them exactly).
Equal strings (a message's text in many questions' rows) are stored once. Load only files you wrote:
unpickling runs code named in the file.
"""

from __future__ import annotations

import gzip
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from retrieval.evaluation.dataset import EvalQuery

FORMAT = "memhq-eval-rows/1"


class RowsFileError(ValueError):
    """The file is not a rows file this version of memhq_eval wrote."""


@dataclass
class SavedRows:
    data: str  # the data set's folder, for the record
    conversations: list[str]  # those ingested, in file order
    queries: list[EvalQuery]
    episode_ids: dict[str, str]  # our episode uuid → the data set's episode id
    rows: dict[str, list[dict[str, Any]]]  # qid → the rows fetch() returned


def _shared(value: Any, strings: dict[str, str]) -> Any:
    if isinstance(value, str):
        return strings.setdefault(value, value)
    if isinstance(value, list):
        return [_shared(element, strings) for element in value]
    return value


def write_rows(path: Path, saved: SavedRows) -> None:
    strings: dict[str, str] = {}
    rows = {
        qid: [{key: _shared(value, strings) for key, value in row.items()} for row in question_rows]
        for qid, question_rows in saved.rows.items()
    }
    payload = {
        "format": FORMAT,
        "data": saved.data,
        "conversations": saved.conversations,
        "queries": saved.queries,
        "episode_ids": saved.episode_ids,
        "rows": rows,
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
