"""The web as ``make run`` deploys it, on loopback: gunicorn started from the Procfile's web line, and the
front before it (Caddy with config/Caddyfile, started by config/front.py as the Procfile's front line)."""

from __future__ import annotations

import re
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.support.worker import ROOT, stop

READY_TIMEOUT_S = 60.0
LOG_TAIL_CHARS = 4000
FRONT_ERROR_HEADER = "MemHQ-Error-Source"  # on what the front answers itself (config/Caddyfile)
REPLACED_FLAGS = ("--bind", "-b", "--workers", "-w")
_DEFAULT = re.compile(r"\$\{(\w+):-([^}]*)\}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def procfile_line(name: str) -> str:
    return next(line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith(f"{name}:"))


def gunicorn_argv(binds: list[str], workers: int) -> list[str]:
    """The Procfile's web command for this interpreter, with these binds and this many workers."""
    words = [_DEFAULT.sub(lambda m: m.group(2), word) for word in shlex.split(procfile_line("web")[4:])]
    assert Path(words[0]).name == "gunicorn", words
    argv, rest = [sys.executable, "-m", "gunicorn"], words[1:]
    while rest:
        word, *rest = rest
        if word in REPLACED_FLAGS:
            rest = rest[1:]  # and its value
        else:
            argv.append(word)
    for bind in binds:
        argv += ["--bind", bind]
    return [*argv, "--workers", str(workers), "--graceful-timeout", "1"]


def _accepts(bind: str) -> bool:
    family = socket.AF_UNIX if bind.startswith("unix:") else socket.AF_INET
    address: str | tuple[str, int]
    if bind.startswith("unix:"):
        address = bind.removeprefix("unix:")
    else:
        host, _, port = bind.rpartition(":")
        address = (host, int(port))
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.settimeout(1)
        try:
            probe.connect(address)
            return True
        except OSError:
            return False


def _wait(process: subprocess.Popen[bytes], log: Path, what: str, ready: Callable[[], bool]) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not ready():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start:\n{log.read_text(errors='replace')[-LOG_TAIL_CHARS:]}")
        time.sleep(0.1)


@contextmanager
def gunicorn_process(
    binds: list[str], env: Mapping[str, str], log: Path, workers: int = 2
) -> Iterator[subprocess.Popen[bytes]]:
    """gunicorn as the Procfile runs it, listening on ``binds`` (``unix:PATH`` or ``HOST:PORT``)."""
    with log.open("wb") as out:
        process = subprocess.Popen(
            gunicorn_argv(binds, workers),
            cwd=ROOT,
            env=dict(env),
            stdout=out,
            stderr=out,
            start_new_session=True,
        )
    try:
        _wait(process, log, "gunicorn", lambda: all(_accepts(bind) for bind in binds))
        yield process
    finally:
        stop(process)


@contextmanager
def front_process(env: Mapping[str, str], log: Path, upstream: str) -> Iterator[str]:
    """The Procfile's front line (config/front.py → Caddy) on a free loopback port, before ``upstream``
    (Caddy's form: ``unix//abs/path`` or ``host:port``); yields its base URL."""
    port = free_port()
    command = shlex.split(procfile_line("front")[6:])
    assert command[1:] == ["-m", "config.front"], command
    env = {**env, "MEMHQ_BIND": f"127.0.0.1:{port}", "MEMHQ_FRONT_UPSTREAM": upstream}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "config.front"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=out,
            start_new_session=True,
        )
    try:
        _wait(process, log, "the front (caddy)", lambda: _accepts(f"127.0.0.1:{port}"))
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)


def wait_for_app(url: str, log: Path) -> None:
    """Until ``url``/healthz is answered by the app (not by the front for a gunicorn still starting), then a
    few more requests so that every worker has loaded Django."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    answered = 0
    while answered < 10:
        try:
            response = httpx.get(f"{url}/healthz", timeout=30)
            if FRONT_ERROR_HEADER not in response.headers:
                answered += 1
                continue
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"the app did not answer:\n{log.read_text(errors='replace')[-LOG_TAIL_CHARS:]}"
            )
        time.sleep(0.2)
