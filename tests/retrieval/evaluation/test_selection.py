from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooling.evaluation.selection import SelectionError, conversation_order, select

ORDER = ["c-a", "c-b", "c-c", "c-d", "c-e", "c-f", "c-g"]


def test_conversation_order_is_the_order_of_first_appearance(tmp_path: Path) -> None:
    lines = [{"conv_id": conv_id} for conv_id in ["k2", "k2", "k1", "k3", "k1"]]
    (tmp_path / "episodes.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n\n")
    assert conversation_order(tmp_path) == ["k2", "k1", "k3"]


def test_a_plain_integer_still_means_the_first_n() -> None:
    assert select(ORDER, "2") == ["c-a", "c-b"]
    assert select(ORDER, None) == ORDER


def test_ids_select_those_conversations_in_file_order() -> None:
    assert select(ORDER, "c-d, c-a") == ["c-a", "c-d"]


def test_an_unknown_id_is_refused_with_the_known_ones() -> None:
    with pytest.raises(SelectionError, match="unknown conversations c-z; known: c-a"):
        select(ORDER, "c-a,c-z")


def test_folds_deal_the_conversations_round_robin_and_cover_each_once() -> None:
    folds = [select(ORDER, None, 3, fold) for fold in range(3)]
    assert folds == [["c-a", "c-d", "c-g"], ["c-b", "c-e"], ["c-c", "c-f"]]
    assert sorted(sum(folds, [])) == ORDER


def test_train_is_every_fold_but_the_held_out_one() -> None:
    assert select(ORDER, None, 3, 1, train=True) == ["c-a", "c-c", "c-d", "c-f", "c-g"]
    assert set(select(ORDER, None, 3, 1, train=True)).isdisjoint(select(ORDER, None, 3, 1))


def test_folds_split_what_conversations_selected() -> None:
    assert select(ORDER, "4", 2, 0) == ["c-a", "c-c"]


@pytest.mark.parametrize(
    ("folds", "fold", "train", "message"),
    [
        (3, None, False, "go together"),
        (None, None, True, "--train needs"),
        (3, 3, False, "between 0 and 2"),
        (1, 0, False, "at least 2"),
        (8, 0, False, "more than the 7"),
    ],
)
def test_fold_options_that_do_not_fit_are_refused(
    folds: int | None, fold: int | None, train: bool, message: str
) -> None:
    with pytest.raises(SelectionError, match=message):
        select(ORDER, None, folds, fold, train=train)
