from __future__ import annotations

import gzip
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from retrieval.evaluation.dataset import EvalQuery
from retrieval.evaluation.rows import RowsFileError, SavedRows, read_rows, write_rows


def test_rows_round_trip_with_datetimes_uuids_and_arrays(tmp_path: Path) -> None:
    memory = uuid.uuid4()
    when = datetime(2024, 2, 3, 4, 5, 6, 7, tzinfo=UTC)
    text = "a long message " * 50
    rows: dict[str, list[dict[str, Any]]] = {
        "q1": [{"signal": "bm25", "memory_id": memory, "m_valid_from": when, "msg_content": text, "rank": 1}],
        "q2": [{"signal": "vector", "m_sources": [f"{memory}:0", f"{memory}:1"], "msg_content": text[:]}],
    }
    query = EvalQuery("c1", "q1", "What?", when, "single", ("m1",), ("c1/s1",))
    saved = SavedRows("some/data", ["c1"], [query], {str(memory): "c1/s1"}, rows)
    path = tmp_path / "rows.pkl.gz"
    write_rows(path, saved)
    loaded = read_rows(path)
    assert loaded == saved
    assert loaded.rows["q1"][0]["memory_id"] == memory and loaded.rows["q1"][0]["m_valid_from"] == when
    assert loaded.rows["q1"][0]["msg_content"] is loaded.rows["q2"][0]["msg_content"]  # stored once


def test_a_file_that_is_not_a_rows_file_is_refused(tmp_path: Path) -> None:
    text_file = tmp_path / "notes.txt"
    text_file.write_text("hello")
    with pytest.raises(RowsFileError, match="not a memhq_eval rows file"):
        read_rows(text_file)
    other = tmp_path / "other.gz"
    with gzip.open(other, "wb") as out:
        out.write(b"\x80\x05K\x01.")  # a pickled 1
    with pytest.raises(RowsFileError, match="write it again"):
        read_rows(other)
