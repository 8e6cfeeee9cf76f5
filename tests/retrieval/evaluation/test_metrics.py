from __future__ import annotations

import pytest

from retrieval.items import Item
from tooling.evaluation.metrics import Scores, all_at, any_at, frac_at
from tooling.evaluation.runner import provenance


def test_frac_counts_each_gold_id_once_even_when_gold_repeats_it() -> None:
    assert frac_at(["a", "x"], ["a", "a", "b"], 5) == 0.5
    assert frac_at(["x", "b", "a"], ["a", "b"], 2) == 0.5
    assert frac_at(["x", "b", "a"], ["a", "b"], 3) == 1.0
    assert frac_at(["a"], [], 5) == 0.0


def test_all_and_any_look_only_at_the_top_k() -> None:
    ranked = ["x", "a", "y", "b"]
    assert (all_at(ranked, ["a", "b"], 3), any_at(ranked, ["a", "b"], 3)) == (0.0, 1.0)
    assert (all_at(ranked, ["a", "b"], 4), any_at(ranked, ["a", "b"], 4)) == (1.0, 1.0)
    assert (all_at(ranked, ["z"], 4), any_at(ranked, ["z"], 4)) == (0.0, 0.0)
    assert all_at(ranked, [], 4) == 0.0  # a question without evidence never counts as found


def test_repeated_message_ids_take_one_rank_so_later_evidence_still_lands_in_the_top_5() -> None:
    scores = Scores()
    scores.add("single", ["x"] * 5 + ["g1", "y", "g2"], [], ["g1", "g2"], [], qid="q1")
    row = scores.questions[0]
    assert (row["frac@5"], row["all@5"], row["any@5"]) == (1.0, 1.0, 1.0)


def test_frac_at_10_and_20_on_a_hand_computed_ranking() -> None:
    ranked = [f"n{index}" for index in range(25)]
    ranked[3], ranked[12], ranked[22] = "g1", "g2", "g3"  # ranks 4, 13 and 23
    scores = Scores()
    scores.add("multi", ranked, [], ["g1", "g2", "g3"], [], context_tokens=120, qid="q1")
    row = scores.questions[0]
    assert row["frac@5"] == pytest.approx(1 / 3)
    assert row["frac@10"] == pytest.approx(1 / 3)
    assert row["frac@20"] == pytest.approx(2 / 3)
    assert (row["all@20"], row["any@5"]) == (0.0, 1.0)
    assert row["context_tokens"] == 120


def item(key: str, episodes: list[str], messages: list[str]) -> Item:
    return Item(key, key, "memory", key, "", episode_ids=episodes, message_ids=messages)


def test_sessions_rank_by_their_best_item_and_unknown_episodes_are_skipped() -> None:
    items = [
        item("a", ["E2"], ["m5"]),
        item("b", ["E1", "E2"], ["m1", "m5"]),
        item("c", ["E9"], ["m9"]),  # an episode the run did not ingest
        item("d", ["E3"], ["m7"]),
    ]
    messages, sessions = provenance(items, {"E1": "s1", "E2": "s2", "E3": "s3"})
    assert messages == ["m5", "m1", "m5", "m9", "m7"]
    assert sessions == ["s2", "s1", "s2", "s3"]
    scores = Scores()
    scores.add("temporal", messages, sessions, ["m1"], ["s1", "s2"], qid="q1")
    scores.add("temporal", messages, sessions, ["m7"], ["s3"], qid="q2")
    first, second = scores.questions
    assert (first["session_all@1"], first["session_all@3"]) == (0.0, 1.0)
    assert (second["session_all@1"], second["session_all@3"]) == (0.0, 1.0)
    assert second["frac@5"] == 1.0  # m7 is the fourth distinct message


def test_table_averages_per_category_and_over_all_questions() -> None:
    scores = Scores()
    scores.add("a", ["g"], [], ["g"], [], qid="q1")
    scores.add("a", ["x"], [], ["g"], [], qid="q2")
    scores.add("b", ["g"], [], ["g"], [], qid="q3")
    table = scores.table()
    assert list(table) == ["all", "a", "b"]
    assert table["all"]["n"] == 3 and table["all"]["frac@10"] == pytest.approx(2 / 3)
    assert table["a"]["frac@10"] == 0.5 and table["b"]["frac@10"] == 1.0
