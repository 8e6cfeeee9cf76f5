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


def test_an_error_on_a_helper_thread_reaches_the_caller() -> None:
    caller = threading.current_thread()
    gate = threading.Barrier(2, timeout=5)

    class Falsy(Exception):
        def __bool__(self) -> bool:  # an error that tests false is still an error
            return False

    def job(number: int) -> None:
        if number < 2:
            gate.wait()  # jobs 0 and 1 on two threads at once
        if threading.current_thread() is not caller:
            raise Falsy("failed on a helper")

    with pytest.raises(Falsy, match="failed on a helper"):
        beside.spread(job, 4, helpers=1)


def test_nothing_to_do() -> None:
    beside.spread(lambda n: pytest.fail("no job"), 0, helpers=2)


@pytest.fixture
def four_cpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The real spare_cores, on four CPUs, no quota and a run queue the test writes (``loadavg``)."""
    monkeypatch.undo()
    monkeypatch.setattr(beside.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    monkeypatch.setattr(beside, "CPU_MAX", str(tmp_path / "no-cgroup"))
    monkeypatch.setattr(beside, "LOADAVG", str(tmp_path / "loadavg"))
    return tmp_path / "loadavg"


@pytest.mark.parametrize(
    ("loadavg", "spare"),
    [("0.5 0.4 0.3 1/180 999\n", 3), ("3.1 2.0 1.0 3/180 999\n", 1), ("9 9 9 7/180 9\n", 0)],
)
def test_spare_cores_are_the_cpus_less_the_runnable_threads(
    loadavg: str, spare: int, four_cpus: Path
) -> None:
    four_cpus.write_text(loadavg)
    assert beside.spare_cores() == spare


def test_an_unreadable_run_queue_counts_only_the_caller(four_cpus: Path) -> None:
    assert beside.spare_cores() == 3


@pytest.mark.parametrize(
    ("cpu_max", "cpus"), [("max 100000\n", 4), ("200000 100000\n", 2), ("50000 100000\n", 1)]
)
def test_a_cgroup_quota_caps_the_cpus(
    cpu_max: str, cpus: int, four_cpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cpu.max").write_text(cpu_max)
    monkeypatch.setattr(beside, "CPU_MAX", str(tmp_path / "cpu.max"))
    assert beside.usable_cpus() == cpus


def test_jobs_already_lent_count_as_busy(four_cpus: Path) -> None:
    """A job handed to a helper counts from the moment it is submitted, runnable yet or not."""
    four_cpus.write_text("0.1 0.1 0.1 1/180 9\n")
    release = threading.Event()
    running = [beside.beside(release.wait, 10) for _ in range(2)]
    try:
        assert beside.spare_cores() == 1  # four CPUs less the caller and the two lent jobs
    finally:
        release.set()
        for future in running:
            future.result(timeout=10)
    assert beside.spare_cores() == 3


def test_a_busy_box_lends_no_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(beside, "spare_cores", lambda: 0)
    names: set[str] = set()
    beside.spread(lambda n: names.add(threading.current_thread().name), 50, helpers=3)
    assert names == {threading.current_thread().name}
