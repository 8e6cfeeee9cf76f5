"""A gunicorn started exactly like the Procfile's web line (``make run``), on a free loopback port.

The command line is read from the Procfile, so the benchmark follows it when it changes; only the bind
address is replaced, and, for the baseline, the WSGI module.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse, urlunparse

from django.conf import settings
from django.db import connection

from config.env import parse_database_url

LOOPBACK = "127.0.0.1"
READY_TIMEOUT_S = 90.0
READY_POLL_S = 0.2
STOP_TIMEOUT_S = 30.0
HEALTH_PATH = "/healthz"
BIND_FLAGS = ("--bind", "-b")
WORKERS_FLAGS = ("--workers", "-w")
LOG_TAIL_CHARS = 4000
_DEFAULT = re.compile(r"\$\{(\w+):-([^}]*)\}")
_PLAIN = re.compile(r"\$\{?(\w+)\}?")


class ServerError(RuntimeError):
    pass


@dataclass(frozen=True)
class Server:
    url: str
    pid: int
    log: Path


def expand(text: str, env: Mapping[str, str]) -> str:
    """``${VAR:-default}`` and ``$VAR`` as sh expands them (enough for the Procfile)."""
    text = _DEFAULT.sub(lambda m: env.get(m.group(1)) or m.group(2), text)
    return _PLAIN.sub(lambda m: env.get(m.group(1), ""), text)


def wsgi_target(dotted: str) -> str:
    """``config.wsgi.application`` (the setting's form) → ``config.wsgi:application`` (gunicorn's)."""
    module, _, attribute = dotted.rpartition(".")
    return f"{module}:{attribute}"


def procfile_web_argv(env: Mapping[str, str], port: int, target: str) -> list[str]:
    """The Procfile's web command for this interpreter, bound to ``port``, serving ``target``."""
    procfile = Path(settings.BASE_DIR) / "Procfile"
    line = next((ln for ln in procfile.read_text().splitlines() if ln.startswith("web:")), None)
    if line is None:
        raise ServerError(f"{procfile} has no web: line")
    words = [expand(word, env) for word in shlex.split(line.partition(":")[2])]
    if not words or Path(words[0]).name != "gunicorn":
        raise ServerError(f"the Procfile's web line does not run gunicorn: {line!r}")
    served = wsgi_target(settings.WSGI_APPLICATION)
    if served not in words:
        raise ServerError(f"the Procfile's web line does not serve WSGI_APPLICATION ({served}): {line!r}")
    argv = [sys.executable, "-m", "gunicorn", *words[1:]]
    argv[argv.index(served)] = target
    bind = next((i for i, word in enumerate(argv) if word in BIND_FLAGS), None)
    if bind is None:
        argv += ["--bind", f"{LOOPBACK}:{port}"]
    else:
        argv[bind + 1] = f"{LOOPBACK}:{port}"
    return argv


def procfile_workers(env: Mapping[str, str]) -> str:
    """How many workers the Procfile's gunicorn starts with ``env`` (else gunicorn's default)."""
    argv = procfile_web_argv(env, 0, wsgi_target(settings.WSGI_APPLICATION))
    for flag in WORKERS_FLAGS:
        if flag in argv:
            return argv[argv.index(flag) + 1]
    return env.get("WEB_CONCURRENCY", "1")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


def database_url_for_children() -> str | None:
    """DATABASE_URL naming the database this process is connected to (the test database under pytest)."""
    url = os.environ.get("DATABASE_URL")
    current = str(connection.settings_dict["NAME"])
    if url is None or parse_database_url(url).name == current:
        return url
    return urlunparse(urlparse(url)._replace(path="/" + current))


def _wait_ready(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while True:
        if process.poll() is not None:
            raise ServerError(
                f"gunicorn exited with {process.returncode}:\n{log.read_text()[-LOG_TAIL_CHARS:]}"
            )
        try:
            with urllib.request.urlopen(url + HEALTH_PATH, timeout=READY_POLL_S * 10):
                return
        except urllib.error.HTTPError:
            return  # the server answers; a 503 only says the pipeline (workers) is not ready, not the web
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise ServerError(f"gunicorn did not answer {HEALTH_PATH} in {READY_TIMEOUT_S:g} s; see {log}")
        time.sleep(READY_POLL_S)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)  # graceful: workers finish their request
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def gunicorn(
    *, target: str, log: Path, workers: int | None = None, extra_env: Mapping[str, str] | None = None
) -> Iterator[Server]:
    """Start gunicorn as the Procfile does; yield when /healthz answers (200, or 503 when no worker runs: the
    web is up); stop it afterwards."""
    env = dict(os.environ)
    database_url = database_url_for_children()
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    if workers is not None:
        env["WEB_CONCURRENCY"] = str(workers)
    env.update(extra_env or {})
    port = free_port()
    argv = procfile_web_argv(env, port, target)
    with log.open("wb") as out:
        process = subprocess.Popen(argv, cwd=settings.BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://{LOOPBACK}:{port}"
    try:
        _wait_ready(process, url, log)
        yield Server(url=url, pid=process.pid, log=log)
    finally:
        stop(process)
