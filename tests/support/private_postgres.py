"""A private PostgreSQL server for a fault test to stop and freeze: a copy of the suite's server taken with
``pg_basebackup`` (so it has the test database, migrated, and whatever rows the test committed first),
started on its own Unix socket in its own directory as an ordinary primary (no ``-R``: not a replica).
Stopping or freezing it leaves the suite's own server alone. Built on the binaries and helpers of
``config.streaming_replica``."""

from __future__ import annotations

import contextlib
import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from config.streaming_replica import _bin, _run, base_backup


@dataclass(frozen=True)
class PrivateServer:
    data_dir: Path
    primary: dict[str, Any]

    def url(self) -> str:
        """A DATABASE_URL for the test database on this server (Unix socket)."""
        user = self.primary["USER"] or "postgres"
        return f"postgresql://{user}@/{self.primary['NAME']}?host={self.data_dir}"

    def start(self) -> None:
        log = self.data_dir / "server.log"
        options = f"-h '' -k {self.data_dir}"
        _run([_bin("pg_ctl"), "-D", str(self.data_dir), "-l", str(log), "-o", options, "-w", "start"])

    def stop(self, mode: str = "fast") -> None:
        if (self.data_dir / "postmaster.pid").exists():
            _run([_bin("pg_ctl"), "-D", str(self.data_dir), "-m", mode, "-w", "stop"])

    def processes(self) -> list[psutil.Process]:
        """The postmaster and every backend and auxiliary process under it."""
        pid = int((self.data_dir / "postmaster.pid").read_text().split()[0])
        postmaster = psutil.Process(pid)
        return [postmaster, *postmaster.children(recursive=True)]

    def freeze(self) -> list[psutil.Process]:
        """SIGSTOP the whole server, as a wedged host looks to its clients; :meth:`thaw` undoes it."""
        frozen = self.processes()
        for process in frozen:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.send_signal(signal.SIGSTOP)
        return frozen

    @staticmethod
    def thaw(frozen: list[psutil.Process]) -> None:
        for process in frozen:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.send_signal(signal.SIGCONT)


@contextmanager
def private_copy(primary: dict[str, Any], directory: Path) -> Iterator[PrivateServer]:
    """A started copy of the server behind ``primary`` (a Django DATABASES entry), in ``directory``
    (created; removed afterwards)."""
    data_dir = directory / "pgdata"
    base_backup(primary, data_dir, standby=False)
    server = PrivateServer(data_dir, primary)
    try:
        server.start()
        yield server
    finally:
        with contextlib.suppress(Exception):
            PrivateServer.thaw(server.processes())
        with contextlib.suppress(Exception):
            server.stop("immediate")
        shutil.rmtree(directory, ignore_errors=True)
