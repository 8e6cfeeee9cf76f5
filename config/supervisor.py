"""``make run``'s process manager: runs every line of the Procfile, restarts a process that exits (logged,
with backoff), and stops them all on Ctrl-C / SIGTERM.

    python -m config.supervisor [Procfile]

honcho (used before) stops every process as soon as one exits, so one crashed worker took the web server,
beat and the embedded databases down with it. Here a process that exits is started again after
``RESTART_MIN_S`` (doubling up to ``RESTART_MAX_S`` while it keeps failing quickly; back to the minimum once
it has run for ``STABLE_AFTER_S``). Each output line is prefixed with the process name, as honcho did.
Production deployments restart processes with their own supervisor (compose ``restart: unless-stopped``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

RESTART_MIN_S = 1.0
RESTART_MAX_S = 30.0
STABLE_AFTER_S = 60.0
STOP_TIMEOUT_S = 10.0
POLL_S = 0.2


def parse_procfile(text: str) -> dict[str, str]:
    processes: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and ":" in line:
            name, _, command = line.partition(":")
            processes[name.strip()] = command.strip()
    return processes


def log(message: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} supervisor | {message}", flush=True)


def _pipe(name: str, stream: IO[bytes], width: int) -> None:
    for raw in iter(stream.readline, b""):
        sys.stdout.write(f"{time.strftime('%H:%M:%S')} {name:<{width}} | {raw.decode(errors='replace')}")
        sys.stdout.flush()


@dataclass
class Process:
    name: str
    command: str
    width: int
    popen: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    backoff: float = RESTART_MIN_S
    restart_at: float | None = None
    restarts: int = field(default=0)

    def start(self) -> None:
        self.popen = subprocess.Popen(
            ["sh", "-c", self.command],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: a stop reaches its children too
        )
        assert self.popen.stdout is not None
        threading.Thread(target=_pipe, args=(self.name, self.popen.stdout, self.width), daemon=True).start()
        self.started = time.monotonic()
        self.restart_at = None
        log(f"{self.name} started (pid {self.popen.pid})")

    def check(self, now: float) -> None:
        if self.popen is not None and (code := self.popen.poll()) is not None:
            ran = now - self.started
            self.backoff = RESTART_MIN_S if ran >= STABLE_AFTER_S else self.backoff
            log(f"{self.name} exited with code {code} after {ran:.1f}s; restarting in {self.backoff:.1f}s")
            self.popen = None
            self.restart_at = now + self.backoff
            self.backoff = min(self.backoff * 2, RESTART_MAX_S)
        elif self.popen is None and self.restart_at is not None and now >= self.restart_at:
            self.restarts += 1
            self.start()

    def signal(self, sig: int) -> None:
        if self.popen is not None and self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, sig)


def run(processes: dict[str, str]) -> int:
    width = max(len(name) for name in processes)
    managed = [Process(name, command, width) for name, command in processes.items()]
    stopping = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopping.set())
    for process in managed:
        process.start()
    while not stopping.is_set():
        now = time.monotonic()
        for process in managed:
            process.check(now)
        stopping.wait(POLL_S)
    log("stopping")
    for process in managed:
        process.signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    for process in managed:
        if process.popen is not None:
            try:
                process.popen.wait(max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                process.signal(signal.SIGKILL)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    procfile = Path(args[0] if args else "Procfile")
    return run(parse_procfile(procfile.read_text()))


if __name__ == "__main__":
    sys.exit(main())
