from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tooling.evaluation.compare import KEY_METRICS, CompareError, compare, paired_interval


def test_a_consistent_improvement_gives_an_interval_above_zero() -> None:
    rng = np.random.default_rng(1)
    before = rng.integers(0, 2, size=200).astype(float)
    after = before.copy()
    after[np.flatnonzero(before == 0)[:40]] = 1.0  # 40 of 200 questions newly found, none lost
    delta = paired_interval(before.tolist(), after.tolist())
    assert delta.delta == pytest.approx(0.2)
    assert 0 < delta.low < 0.2 < delta.high
    assert delta.significant


def test_identical_runs_give_a_zero_delta_that_is_not_flagged() -> None:
    values = [0.0, 1.0, 0.5, 1.0, 0.25]
    delta = paired_interval(values, values)
    assert (delta.delta, delta.low, delta.high) == (0.0, 0.0, 0.0)
    assert not delta.significant


def test_gains_and_losses_that_cancel_out_are_not_flagged() -> None:
    before = [1.0, 0.0] * 50
    after = [0.0, 1.0] * 50
    delta = paired_interval(before, after)
    assert delta.delta == 0.0 and delta.low < 0 < delta.high
    assert not delta.significant


def test_the_interval_is_the_same_on_every_run() -> None:
    before, after = [0.0, 1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 0.0, 1.0, 1.0]
    assert paired_interval(before, after) == paired_interval(before, after)


def row(qid: str, category: str, value: float, tokens: int) -> dict[str, Any]:
    return {"qid": qid, "category": category, **dict.fromkeys(KEY_METRICS, value), "context_tokens": tokens}


BEFORE = [
    row("q1", "dates", 0.0, 100),
    row("q2", "dates", 1.0, 300),
    row("q3", "places", 0.0, 200),
    row("q4", "places", 0.5, 900),  # only in BEFORE: not compared
]
AFTER = [
    row("q1", "dates", 1.0, 100),
    row("q2", "dates", 1.0, 100),
    row("q3", "places", 0.5, 50),
]


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"tables": {}, "per_question": {"fusion": rows}}))
    return path


def by_qid(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["qid"]: item for item in rows}


def test_compare_pairs_shared_questions_per_category_and_overall() -> None:
    result = compare(by_qid(BEFORE), by_qid(AFTER))
    assert list(result.categories) == ["all", "dates", "places"]
    assert (result.only_before, result.only_after) == (1, 0)
    overall = result.categories["all"]
    assert overall.n == 3
    assert overall.metrics["frac@10"].before == pytest.approx(1 / 3)
    assert overall.metrics["frac@10"].after == pytest.approx(2.5 / 3)
    assert result.categories["dates"].metrics["all@10"].delta == pytest.approx(0.5)
    assert result.categories["places"].metrics["session_all@3"].delta == pytest.approx(0.5)
    assert overall.tokens is not None
    assert (overall.tokens.before, overall.tokens.after) == (200.0, 100.0)


def test_a_metric_one_run_lacks_is_left_out() -> None:
    older = [{key: value for key, value in item.items() if key != "session_all@3"} for item in BEFORE]
    result = compare(by_qid(older), by_qid(AFTER))
    assert "session_all@3" not in result.categories["all"].metrics
    assert "frac@10" in result.categories["all"].metrics


def test_compare_refuses_runs_without_a_shared_question() -> None:
    with pytest.raises(CompareError, match="share no question"):
        compare(by_qid(BEFORE[:1]), by_qid(AFTER[1:]))


def test_the_command_prints_before_after_delta_and_interval_without_a_database(tmp_path: Path) -> None:
    out = StringIO()
    before, after = write(tmp_path / "a.json", BEFORE), write(tmp_path / "b.json", AFTER)
    call_command("memhq_eval", "--compare", str(before), str(after), stdout=out)
    lines = out.getvalue().splitlines()
    assert "only in BEFORE: 1, only in AFTER: 0" in lines[2]
    start = lines.index("all (n=3)")
    frac = next(line for line in lines[start:] if line.strip().startswith("frac@10"))
    assert frac.split()[:4] == ["frac@10", "0.333", "0.833", "+0.500"]
    tokens = next(line for line in lines[start:] if line.strip().startswith("median tokens"))
    assert tokens.split()[2:5] == ["200", "100", "-100"]


def test_the_command_refuses_a_report_without_per_question_rows(tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"tables": {}}))
    with pytest.raises(CommandError, match="no per-question rows"):
        call_command("memhq_eval", "--compare", str(old), str(old), stdout=StringIO())
