"""The query's two vectors, computed side by side: the same vectors as one after the other, e5's on the
helper thread (``memhq.ai.beside``), none when the second embedder is off, concurrent callers not queued
behind one helper, and new helpers in a forked process."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from django.test import override_settings

from memhq.ai import beside, e5
from memhq.ai.provider import get_embedder
from retrieval import query_vectors

QUESTION = "Which cello teacher did I say I liked?"


def test_both_vectors_are_those_of_each_model_alone() -> None:
    vector, second = query_vectors.query_vectors(QUESTION)
    assert second is not None
    assert np.array_equal(vector, get_embedder().embed_query(QUESTION))
    assert np.array_equal(second, e5.get_e5_embedder().embed_query(QUESTION))


def test_e5_runs_on_the_helper_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    model = e5.get_e5_embedder()
    original = model.embed_query

    def recording(text: str) -> np.ndarray:
        threads.append(threading.current_thread().name)
        return original(text)

    monkeypatch.setattr(model, "embed_query", recording)
    query_vectors.query_vectors(QUESTION)
    assert threads and threads[0].startswith("memhq-beside")


def test_no_second_vector_when_the_second_embedder_is_off() -> None:
    with override_settings(MEMHQ_SECOND_EMBEDDER="off"):
        vector, second = query_vectors.query_vectors(QUESTION)
    assert second is None
    assert np.array_equal(vector, get_embedder().embed_query(QUESTION))


def test_a_forked_process_starts_its_own_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    parents = beside.helper()
    assert beside.helper() is parents
    monkeypatch.setattr(beside.os, "getpid", lambda: -1)  # as a forked child sees itself
    child = beside.helper()
    assert child is not parents
    assert child.submit(lambda: 42).result(timeout=5) == 42


def test_callers_at_once_do_not_queue_behind_one_helper() -> None:
    """Two jobs that each wait for the other finish only if they run at the same time (as the e5 work of two
    requests one gunicorn worker serves at once)."""
    both = threading.Barrier(2, timeout=5)
    jobs = [beside.beside(both.wait) for _ in range(2)]
    assert sorted(job.result(timeout=10) for job in jobs) == [0, 1]
