from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.retrieval.evaluation.test_overrides import BASE
from tooling.evaluation.dataset import EvalQuery
from tooling.evaluation.overrides import OverrideError
from tooling.evaluation.rows import SavedRows
from tooling.evaluation.tuning import Candidate, combinations, cross_validate

CONVERSATIONS = ["c0", "c1", "c2", "c3"]  # two folds: c0 + c2, c1 + c3
WHEN = datetime(2024, 1, 1, tzinfo=UTC)


def saved() -> SavedRows:
    queries = [EvalQuery(conv, f"{conv}-q", "?", WHEN, "any", ("m",), ("e",)) for conv in CONVERSATIONS]
    return SavedRows("tiny", CONVERSATIONS, queries, {}, {})


def candidate(name: str, frac: dict[str, float]) -> Candidate:
    rows: dict[str, dict[str, float | str]] = {
        f"{conv}-q": {"qid": f"{conv}-q", "category": "any", "frac@10": frac[conv]} for conv in CONVERSATIONS
    }
    return Candidate((name,), BASE, rows)


def test_combinations_are_the_cartesian_product_in_grid_order() -> None:
    assert combinations(["rrf_k=10,20", "speaker_boost=0"]) == [
        ("rrf_k=10", "speaker_boost=0"),
        ("rrf_k=20", "speaker_boost=0"),
    ]
    with pytest.raises(OverrideError, match="NAME=VALUE1"):
        combinations(["rrf_k="])


def test_each_fold_is_scored_with_the_choice_made_on_the_other_folds() -> None:
    even = candidate("even=1", {"c0": 1.0, "c1": 0.0, "c2": 1.0, "c3": 0.2})  # mean 0.55
    odd = candidate("odd=1", {"c0": 0.1, "c1": 0.9, "c2": 0.1, "c3": 0.9})  # mean 0.5
    result = cross_validate(saved(), CONVERSATIONS, [even, odd], folds=2)
    first, second = result.choices
    assert (first.held_out, first.assignments) == (["c0", "c2"], ("odd=1",))  # chosen on c1 + c3
    assert (first.train, first.test) == (pytest.approx(0.9), pytest.approx(0.1))
    assert (second.held_out, second.assignments) == (["c1", "c3"], ("even=1",))
    assert second.test == pytest.approx(0.1)
    assert result.scores.table()["all"]["frac@10"] == pytest.approx(0.1)  # the honest figure
    assert (result.in_sample, result.in_sample_score) == (("even=1",), pytest.approx(0.55))


def test_ties_keep_the_first_combination_and_an_unknown_objective_is_refused() -> None:
    same = {"c0": 0.5, "c1": 0.5, "c2": 0.5, "c3": 0.5}
    result = cross_validate(saved(), CONVERSATIONS, [candidate("a=1", same), candidate("a=2", same)], folds=2)
    assert [choice.assignments for choice in result.choices] == [("a=1",), ("a=1",)]
    with pytest.raises(OverrideError, match="not a metric"):
        cross_validate(saved(), CONVERSATIONS, [candidate("a=1", same)], folds=2, objective="recall")
