from __future__ import annotations

import gzip
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tooling.evaluation.dataset import EvalQuery
from tooling.evaluation.rows import RowsFileError, SavedRows, pack, read_rows, write_rows


def test_rows_round_trip_with_datetimes_uuids_and_arrays(tmp_path: Path) -> None:
    memory = uuid.uuid4()
    when = datetime(2024, 2, 3, 4, 5, 6, 7, tzinfo=UTC)
    text = "a long message " * 50
    copy = "".join(["a long message "] * 50)  # equal, another object
    assert copy is not text
    columns = ("signal", "memory_id", "m_valid_from", "m_sources", "msg_content")
    first: list[dict[str, Any]] = [
        dict(zip(columns, ("bm25", memory, when, None, text), strict=True)),
        dict(zip(columns, ("vector", None, None, ["e:0", "e:1"], ""), strict=True)),
    ]
    second = [dict(zip(columns, ("vector", memory, when, [], copy), strict=True))]
    strings: dict[str, str] = {}
    query = EvalQuery("c1", "q1", "What?", when, "single", ("m1",), ("c1/s1",))
    saved = SavedRows("some/data", ["c1"], [query], {str(memory): "c1/s1"})
    saved.rows = {"q1": pack(first, strings), "q2": pack(second, strings), "q3": pack([], strings)}
    path = tmp_path / "rows.pkl.gz"
    write_rows(path, saved)
    loaded = read_rows(path)
    assert loaded == saved
    assert [loaded.question_rows(qid) for qid in ("q1", "q2", "q3")] == [first, second, []]
    assert loaded.question_rows("q1")[0]["msg_content"] is loaded.question_rows("q2")[0]["msg_content"]


def test_rows_of_one_question_must_share_their_columns() -> None:
    with pytest.raises(ValueError, match="share their columns"):
        pack([{"signal": "bm25", "rank": 1}, {"signal": "vector"}])


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
