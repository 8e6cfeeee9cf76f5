"""Celery worker processes for benchmarks, started as the Procfile's worker line does."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from django.conf import settings

from tooling.bench.server import database_url_for_children

READY_MARK = "ready."
READY_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 30.0


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    database_url = database_url_for_children()
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    return env


@contextmanager
def _child(argv: list[str], *, log: Path, ready: str, what: str) -> Iterator[subprocess.Popen[bytes]]:
    """``argv`` in its own session, output to ``log``, yielded once ``ready`` is in the log; stopped after."""
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv,
            cwd=settings.BASE_DIR,
            env=_child_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while ready not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start; see {log}")
            time.sleep(0.2)
        yield process
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextmanager
def celery_worker(*, concurrency: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    argv = [
        sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=INFO",
        f"--concurrency={concurrency}", "--without-gossip", "--without-mingle", "--without-heartbeat",
    ]  # fmt: skip
    with _child(argv, log=log, ready=READY_MARK, what="celery worker") as process:
        yield process


@contextmanager
def outbox_relay(*, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """The Procfile's relay: publishes what /add commits (ingestion/relay.py)."""
    argv = [sys.executable, "manage.py", "memhq_relay"]
    with _child(argv, log=log, ready="relay: listening", what="the outbox relay") as process:
        yield process
