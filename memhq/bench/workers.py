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

from memhq.bench.server import database_url_for_children

READY_MARK = "ready."
READY_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 30.0


@contextmanager
def celery_worker(*, concurrency: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    env = dict(os.environ)
    database_url = database_url_for_children()
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    argv = [
        sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=INFO",
        f"--concurrency={concurrency}", "--without-gossip", "--without-mingle", "--without-heartbeat",
    ]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv, cwd=settings.BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while READY_MARK not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"celery worker did not start; see {log}")
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
def outbox_relay(*, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """The Procfile's relay: publishes what /add commits (ingestion/relay.py)."""
    env = dict(os.environ)
    database_url = database_url_for_children()
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    argv = [sys.executable, "manage.py", "memhq_relay"]
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv, cwd=settings.BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while "relay: listening" not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the outbox relay did not start; see {log}")
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
