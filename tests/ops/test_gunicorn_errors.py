"""What gunicorn refuses before Django sees it (an oversized request line or header, a malformed request)
comes back in the API's JSON error shape, from gunicorn started with the Procfile's config file."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.redis_server import free_port
from tests.support.worker import worker_env

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT_S = 30.0


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    port = free_port()
    log = tmp_path_factory.mktemp("gunicorn") / "gunicorn.log"
    args = ["-c", "config/gunicorn.conf.py", "config.wsgi:application", "--bind", f"127.0.0.1:{port}"]
    args += ["--workers", "1", "--worker-class", "gthread", "--no-control-socket", "--graceful-timeout", "1"]
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", *args], cwd=ROOT, env=worker_env(), stdout=out, stderr=out
        )
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


def exchange(port: int, raw: bytes) -> tuple[int, dict[str, str], dict[str, object]]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(raw)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, json.loads(body)


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "too_large"),
        (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n", 431, "too_large"),
        (b"NOT A REQUEST\r\n\r\n", 400, "invalid"),
    ],
)
def test_gunicorns_own_refusals_are_json_errors(port: int, raw: bytes, status: int, code: str) -> None:
    got, headers, body = exchange(port, raw)
    assert got == status
    assert headers["content-type"] == "application/json"
    error = body["error"]
    assert isinstance(error, dict) and error["code"] == code and error["message"] and error["fields"] == {}
