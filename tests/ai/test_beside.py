"""memhq.ai.beside.spread: jobs shared between the caller's thread and helper threads."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memhq.ai import beside


@pytest.fixture(autouse=True)
def idle_box(monkeypatch: pytest.MonkeyPatch) -> None:
    """Helpers are lent only to a box with an idle core: these tests need them whatever else runs."""
    monkeypatch.setattr(beside, "spare_cores", lambda: 8)


def test_every_job_runs_once_and_helpers_take_some() -> None:
    threads: dict[int, str] = {}
    gate = threading.Barrier(2, timeout=5)

    def job(number: int) -> None:
        if number < 2:  # the first two jobs run at once: one on the caller, one on the helper
            gate.wait()
        threads[number] = threading.current_thread().name

    beside.spread(job, 40, helpers=1)
    assert sorted(threads) == list(range(40))
    assert len(set(threads.values())) == 2


def test_no_helpers_runs_everything_on_the_caller() -> None:
    seen: list[tuple[int, str]] = []
    beside.spread(lambda n: seen.append((n, threading.current_thread().name)), 5, helpers=0)
    assert seen == [(n, threading.current_thread().name) for n in range(5)]


def test_finishes_when_every_helper_thread_is_busy() -> None:
    """A spread started from inside each helper thread while all of them are busy: none can lend a helper,
    so each caller runs all of its own jobs; none waits on the pool it occupies."""
    all_busy = threading.Barrier(beside.MAX_HELPERS, timeout=10)

    def occupy() -> int:
        all_busy.wait()  # every helper thread is in here now
        counted: list[int] = []
        beside.spread(counted.append, 20, helpers=2)
        return len(counted)

    started = [beside.beside(occupy) for _ in range(beside.MAX_HELPERS)]
    assert [future.result(timeout=20) for future in started] == [20] * beside.MAX_HELPERS


def test_the_first_error_is_raised_and_no_job_starts_after_it() -> None:
    ran: list[int] = []

    def job(number: int) -> None:
        ran.append(number)
        if number == 3:
            raise ValueError("job 3 failed")

    with pytest.raises(ValueError, match="job 3 failed"):
        beside.spread(job, 100, helpers=1)
    assert len(ran) < 100


def test_nothing_to_do() -> None:
    beside.spread(lambda n: pytest.fail("no job"), 0, helpers=2)


@pytest.mark.parametrize(
    ("loadavg", "spare"),
    [("0.5 0.4 0.3 1/180 999\n", 3), ("3.1 2.0 1.0 3/180 999\n", 1), ("9 9 9 7/180 9\n", 0)],
)
def test_spare_cores_are_the_cpus_less_the_runnable_threads(
    loadavg: str, spare: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.undo()  # the real spare_cores, on a fake run queue and four CPUs
    status = tmp_path / "loadavg"
    status.write_text(loadavg)
    monkeypatch.setattr(beside, "LOADAVG", str(status))
    monkeypatch.setattr(beside.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    assert beside.spare_cores() == spare


def test_a_busy_box_lends_no_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(beside, "spare_cores", lambda: 0)
    names: set[str] = set()
    beside.spread(lambda n: names.add(threading.current_thread().name), 50, helpers=3)
    assert names == {threading.current_thread().name}
