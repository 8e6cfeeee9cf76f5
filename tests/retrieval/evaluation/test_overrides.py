from __future__ import annotations

import pytest

from retrieval.config import RetrievalConfig
from tooling.evaluation.overrides import OverrideError, apply

BASE = RetrievalConfig(
    weights={"bm25": 1.0, "vector": 1.0},
    memory_share=0.5,
    speaker_boost=1.0,
    neighbour_weights={1: 0.4, -1: 0.2},
    neighbour_seeds=20,
)


def test_numbers_take_the_type_of_the_field() -> None:
    config = apply(BASE, ["speaker_boost=0.5", "rrf_k=30", "neighbour_seeds=5"])
    assert (config.speaker_boost, config.rrf_k, config.neighbour_seeds) == (0.5, 30, 5)
    assert isinstance(config.rrf_k, int)
    assert BASE.speaker_boost == 1.0  # the base is left alone


def test_one_mapping_entry_changes_and_the_others_stay() -> None:
    config = apply(BASE, ["weights.bm25=1.5", "neighbour_weights.2=0.1"])
    assert config.weights == {"bm25": 1.5, "vector": 1.0}
    assert config.neighbour_weights == {1: 0.4, -1: 0.2, 2: 0.1}


def test_a_whole_mapping_is_a_json_object_with_keys_of_the_mapping_s_type() -> None:
    config = apply(BASE, ['neighbour_weights={"1": 0.3}'])
    assert config.neighbour_weights == {1: 0.3}


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("rrf=30", "not a fusion setting"),
        ("rrf_k=3.5", "takes an integer"),
        ("speaker_boost=high", "takes a number"),
        ("speaker_boost.x=1", "not a mapping"),
        ("neighbour_weights.next=0.1", "keys are integers"),
        ("weights=[1]", "JSON object"),
        ("rrf_k", "NAME=VALUE"),
    ],
)
def test_assignments_that_do_not_fit_are_refused(assignment: str, message: str) -> None:
    with pytest.raises(OverrideError, match=message):
        apply(BASE, [assignment])
