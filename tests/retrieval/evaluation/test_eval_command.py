"""memhq_eval end to end on a tiny hand-written data set, through the real ingest and recall."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memhq.models import Project
from tests.retrieval.evaluation.test_dataset import write_jsonl

SESSIONS = [
    ("garden", "garden/s1", "2024-03-01T10:00:00", [("g1", "Rosa", "I keep two beehives on the roof."),
                                                     ("g2", "Tomas", "Do the bees sting you?")]),
    ("garden", "garden/s2", "2024-03-08T10:00:00", [("g3", "Tomas", "My tomato seedlings froze overnight."),
                                                     ("g4", "Rosa", "Cover them with fleece next time.")]),
    ("chat", "chat/s1", "2024-04-01T09:00:00", [("c1", "user", "I write my scripts in Rust these days."),
                                                 ("c2", "assistant", "Great, Rust is fast.")]),
    ("chat", "chat/s2", "2024-04-09T09:00:00", [("c3", "user", "My cat is called Pixel."),
                                                 ("c4", "assistant", "What a lovely name!")]),
]  # fmt: skip
QUESTIONS = [
    ("garden", "gq1", "Where does Rosa keep her beehives?", "single", ["g1"], ["garden/s1"]),
    ("garden", "gq2", "What happened to the tomato seedlings?", "single", ["g3"], ["garden/s2"]),
    ("chat", "cq1", "Which language does the user write scripts in?", "preference", ["c1"], ["chat/s1"]),
    ("chat", "cq2", "What is the cat called?", "single", ["c3"], ["chat/s2"]),
]


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    folder = tmp_path / "tiny"
    folder.mkdir()
    write_jsonl(
        folder / "episodes.jsonl",
        [
            {
                "conv_id": conv_id,
                "episode_id": episode_id,
                "timestamp": timestamp,
                "messages": [{"msg_id": mid, "speaker": who, "text": text} for mid, who, text in messages],
            }
            for conv_id, episode_id, timestamp, messages in SESSIONS
        ],
    )
    write_jsonl(
        folder / "queries.jsonl",
        [
            {"conv_id": conv_id, "qid": qid, "question": question, "question_time": "2024-06-01T00:00:00",
             "answer": "-", "category_name": category, "evidence_msg_ids": messages,
             "evidence_episode_ids": episodes, "scorable": True}
            for conv_id, qid, question, category, messages, episodes in QUESTIONS
        ],
    )  # fmt: skip
    return folder


def run(*args: str) -> str:
    out = StringIO()
    call_command("memhq_eval", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def report(path: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(path.read_text())
    return result


@pytest.mark.django_db
def test_a_run_scores_every_question_and_its_saved_rows_replay_to_the_same_figures_without_a_database(
    dataset: Path, tmp_path: Path, django_assert_num_queries: Any
) -> None:
    live, rows, replayed = tmp_path / "live.json", tmp_path / "rows.pkl.gz", tmp_path / "replay.json"
    projects = Project.objects.count()
    run("--data", str(dataset), "--json", str(live), "--save-rows", str(rows))
    assert Project.objects.count() == projects  # the evaluation project is deleted afterwards
    first = report(live)
    assert first["conversations"] == ["garden", "chat"] and first["failed_episodes"] == 0
    assert [row["qid"] for row in first["per_question"]["fusion"]] == ["gq1", "gq2", "cq1", "cq2"]
    assert first["tables"]["fusion"]["all"]["any@20"] == 1.0  # every message of a conversation fits in 20

    with django_assert_num_queries(0):
        run("--from-rows", str(rows), "--json", str(replayed))
    assert report(replayed)["per_question"] == first["per_question"]

    with django_assert_num_queries(0):
        fold = ["--folds", "2", "--fold", "1", "--set", "rrf_k=7"]
        output = run("--from-rows", str(rows), *fold, "--json", str(replayed))
    assert "conversations: chat" in output
    held_out = report(replayed)
    assert [row["qid"] for row in held_out["per_question"]["fusion"]] == ["cq1", "cq2"]
    assert held_out["retrieval_config"]["rrf_k"] == 7

    tuned = tmp_path / "tuned.json"
    with django_assert_num_queries(0):
        output = run("--from-rows", str(rows), "--folds", "2", "--grid", "rrf_k=10,30", "--json", str(tuned))
    assert "fold 1 (held out: chat): chose rrf_k=" in output
    cross = report(tuned)
    assert [fold["held_out"] for fold in cross["cross_validation"]["folds"]] == [["garden"], ["chat"]]
    assert sorted(row["qid"] for row in cross["per_question"]["fusion"]) == ["cq1", "cq2", "gq1", "gq2"]


@pytest.mark.django_db
def test_a_run_on_chosen_conversations_asks_only_their_questions(dataset: Path, tmp_path: Path) -> None:
    live = tmp_path / "live.json"
    run("--data", str(dataset), "--conversations", "chat", "--json", str(live))
    figures = report(live)
    assert figures["conversations"] == ["chat"] and figures["episodes"] == 2
    assert [row["qid"] for row in figures["per_question"]["fusion"]] == ["cq1", "cq2"]


@pytest.mark.django_db
def test_a_kept_project_is_asked_again_without_ingesting_to_the_same_figures(
    dataset: Path, tmp_path: Path
) -> None:
    first, again = tmp_path / "first.json", tmp_path / "again.json"
    run("--data", str(dataset), "--keep", "--project", "kept-eval", "--json", str(first))
    episodes = Project.objects.get(name="kept-eval").episodes.count()
    run("--data", str(dataset), "--project", "kept-eval", "--reuse", "--json", str(again))
    assert Project.objects.get(name="kept-eval").episodes.count() == episodes == len(SESSIONS)
    assert report(again)["per_question"] == report(first)["per_question"]
    with pytest.raises(CommandError, match="name it with --project"):
        run("--data", str(dataset), "--reuse")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--conversations", "nowhere"], "unknown conversations nowhere"),
        (["--folds", "2"], "go together"),
        (["--set", "nope=1"], "not a fusion setting"),
    ],
)
def test_options_that_do_not_fit_are_refused_before_anything_is_ingested(
    dataset: Path, args: list[str], message: str
) -> None:
    with pytest.raises(CommandError, match=message):
        run("--data", str(dataset), *args)
