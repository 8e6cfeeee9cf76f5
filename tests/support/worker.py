"""A real Celery worker process against the real broker and the test database."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse, urlunparse

from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT_S = 60.0


def test_database_url() -> str:
    """DATABASE_URL with the database name swapped for the test database pytest-django created."""
    parsed = urlparse(os.environ["DATABASE_URL"])
    return urlunparse(parsed._replace(path="/" + connection.settings_dict["NAME"]))


def worker_env(**overrides: str) -> dict[str, str]:
    env = dict(os.environ)
    env["DATABASE_URL"] = test_database_url()
    env.update(overrides)
    return env


@contextmanager
def celery_process(
    args: list[str], env: dict[str, str], log: Path, ready: str
) -> Iterator[subprocess.Popen[bytes]]:
    with python_process(["-m", "celery", "-A", "config", *args], env, log, ready) as process:
        yield process


@contextmanager
def slow_worker_process(
    delays: dict[int, float], env: dict[str, str], log: Path, concurrency: int = 1, as_deployed: bool = False
) -> Iterator[subprocess.Popen[bytes]]:
    """A real worker whose phases sleep ``delays[phase]`` seconds first (tests/support/slow_worker.py).
    ``as_deployed``: with the Procfile's worker flags."""
    env = {**env, "MEMHQ_TEST_PHASE_DELAY": ",".join(f"{phase}={delay}" for phase, delay in delays.items())}
    flags = procfile_worker_flags(concurrency) if as_deployed else worker_args(concurrency)
    args = ["-m", "tests.support.slow_worker", *flags]
    with python_process(args, env, log, ready="ready.") as process:
        yield process


@contextmanager
def relay_process(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """The outbox relay (``manage.py memhq_relay``), which publishes what /add committed."""
    with python_process(["manage.py", "memhq_relay"], env, log, ready="relay: listening") as process:
        yield process


@contextmanager
def python_process(
    args: list[str], env: dict[str, str], log: Path, ready: str
) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, *args],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=out,
            start_new_session=True,  # its own process group, so a kill reaches the pool's children too
        )
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while ready not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{args[:3]} did not start:\n{log.read_text(errors='replace')[-4000:]}")
            time.sleep(0.1)
        yield process
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM, timeout_s: float = 15.0) -> None:
    """Stop the whole process group (the worker and its pool children)."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # pool children orphaned by a killed parent


def worker_args(concurrency: int = 1) -> list[str]:
    return [
        "worker",
        "--loglevel=INFO",
        "--pool=prefork",
        f"--concurrency={concurrency}",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]


def procfile_worker_flags(concurrency: int) -> list[str]:
    """``worker`` and the Procfile's worker flags, with this concurrency."""
    line = next(line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("worker:"))
    words = line.split()
    flags = [word for word in words[words.index("worker") + 1 :] if not word.startswith("--concurrency")]
    return ["worker", *flags, f"--concurrency={concurrency}", "--pool=prefork"]
