"""prepare-and-recall: both results in one call, recall running beside prepare on its own connection.

The helper thread has its own database connection, so these tests commit their data (transaction=True).
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from ingestion.pipeline import run_inline
from memhq.models import Project
from memhq.selectors import threads as selectors
from memhq.selectors.threads import Identity, RecallOptions, prepare_and_recall
from tests.ingestion.helpers import make_episode
from tests.threads.helpers import THREADS, assert_error, create, post, say

QUERY = {"query": "Where does the user live?"}


def ask(api: APIClient, thread_id: str, **payload: Any) -> Any:
    return post(api, f"{THREADS}/{thread_id}/prepare-and-recall", {**QUERY, **payload})


def options() -> RecallOptions:
    return RecallOptions(query=QUERY["query"], limit=20, max_tokens=2000)


@pytest.fixture
def porto(project: Project) -> Project:
    episode = make_episode(project, [{"role": "user", "content": "I live in Porto.", "id": "p1"}], "alice")
    run_inline(episode.pk)
    return project


def memory_texts(body: dict[str, Any]) -> list[str]:
    return [item["text"] for item in body["recall"]["items"] if item["type"] == "memory"]


@pytest.mark.django_db(transaction=True)
def test_returns_the_prepared_messages_and_the_users_memories(porto: Project, api: APIClient) -> None:
    create(api, "alice", thread_id="t")
    say(api, "t", ("user", "Any ideas for dinner tonight?"), ("assistant", "What do you feel like?"))
    for _ in range(2):  # the first call for a thread runs prepare then recall; the next ones run together
        response = ask(api, "t", message_limit=1)
        assert response.status_code == 200
        body = response.json()
        assert body["messages"] == [{"role": "assistant", "content": "What do you feel like?"}]
        assert set(body["recall"]) == {
            "context",
            "context_tokens",
            "items",
            "fact_count",
            "processed_through",
            "degraded",
        }
        assert any("Porto" in text for text in memory_texts(body))
        assert body["recall"]["degraded"] is False and "Porto" in body["recall"]["context"]


@pytest.mark.django_db(transaction=True)
def test_the_second_call_runs_recall_beside_prepare(porto: Project) -> None:
    from memhq.services.threads import thread_create

    thread_create(project=porto, user_id="alice", key="t")
    first = prepare_and_recall(project=porto, key="t", message_limit=20, options=options())
    second = prepare_and_recall(project=porto, key="t", message_limit=20, options=options())
    sequential = prepare_and_recall(
        project=porto, key="t", message_limit=20, options=options(), concurrent=False
    )
    assert (first.concurrent, second.concurrent, sequential.concurrent) == (False, True, False)
    assert (
        [i.id for i in first.recall.items]
        == [i.id for i in second.recall.items]
        == [i.id for i in sequential.recall.items]
    )
    assert any("Porto" in item.text for item in second.recall.items)


@pytest.mark.django_db(transaction=True)
def test_a_wrong_remembered_identity_is_caught_and_recall_redone_for_the_right_user(porto: Project) -> None:
    from memhq.services.threads import thread_create

    thread = thread_create(project=porto, user_id="alice", key="t").thread
    selectors._identities[(str(porto.pk), "t")] = Identity(thread.pk, "mallory", False)
    result = prepare_and_recall(project=porto, key="t", message_limit=20, options=options())
    assert result.concurrent is False
    assert any("Porto" in item.text for item in result.recall.items)
    assert selectors._identities[(str(porto.pk), "t")].user_id == "alice"


@pytest.mark.django_db(transaction=True)
def test_a_thread_remembered_as_normal_that_is_temporary_gets_no_memories(porto: Project) -> None:
    from memhq.services.threads import thread_create

    thread = thread_create(project=porto, user_id="alice", key="t", temporary=True).thread
    selectors._identities[(str(porto.pk), "t")] = Identity(thread.pk, "alice", False)
    result = prepare_and_recall(project=porto, key="t", message_limit=20, options=options())
    assert result.recall.items == [] and result.recall.context == ""


@pytest.mark.django_db(transaction=True)
def test_a_remembered_thread_that_no_longer_exists_is_404(porto: Project, api: APIClient) -> None:
    create(api, "alice", thread_id="t")
    assert ask(api, "t").status_code == 200
    from memhq.models import Thread

    Thread.objects.all().delete()
    assert_error(ask(api, "t"), 404, "not_found")
    assert (str(porto.pk), "t") not in selectors._identities


def test_a_temporary_thread_gets_no_memories_and_recall_is_not_run(
    api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_recall(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("recall must not run for a temporary thread")

    monkeypatch.setattr(selectors, "recall", no_recall)
    create(api, "alice", thread_id="t", temporary=True)
    say(api, "t", ("user", "Something I don't want remembered."))
    for _ in range(2):
        body = ask(api, "t").json()
        assert body["messages"] == [{"role": "user", "content": "Something I don't want remembered."}]
        assert body["recall"]["items"] == [] and body["recall"]["context"] == ""


BAD = [
    ("missing query", {"query": None}, "query"),
    ("user_id is the thread's", {"user_id": "bob"}, "user_id"),
    ("message_limit 0", {"message_limit": 0}, "message_limit"),
    ("limit over the maximum", {"limit": 51}, "limit"),
    ("unknown kind", {"kinds": ["gossip"]}, "kinds"),
    ("unknown field", {"colour": "red"}, "colour"),
]


@pytest.mark.parametrize(("case", "payload", "field"), BAD, ids=[case for case, _, _ in BAD])
def test_bad_input_is_400(api: APIClient, case: str, payload: dict[str, Any], field: str) -> None:
    create(api, thread_id="t")
    body = {key: value for key, value in {**QUERY, **payload}.items() if value is not None}
    response = post(api, f"{THREADS}/t/prepare-and-recall", body)
    assert field in assert_error(response, 400, "invalid")["fields"]


def test_unknown_thread_is_404(api: APIClient) -> None:
    assert_error(ask(api, "nope"), 404, "not_found")


@pytest.mark.django_db(transaction=True)
def test_the_setting_can_turn_concurrency_off(porto: Project, settings: Any) -> None:
    from memhq.services.threads import thread_create

    settings.MEMHQ_PREPARE_AND_RECALL_CONCURRENT = False
    thread_create(project=porto, user_id="alice", key="t")
    results = [
        prepare_and_recall(project=porto, key="t", message_limit=20, options=options()) for _ in range(2)
    ]
    assert [result.concurrent for result in results] == [False, False]
    assert any("Porto" in item.text for item in results[1].recall.items)
