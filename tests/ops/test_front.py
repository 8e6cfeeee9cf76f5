"""The front (Caddy with config/Caddyfile, started as the Procfile's front line) before gunicorn: what it
answers itself comes in the API's JSON error shape, what gunicorn refuses still does, and a forwarded request
keeps the client's Host and scheme. Real Caddy and gunicorn on loopback."""

from __future__ import annotations

import json
import re
import shlex
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from django.conf import settings

from config.front import CADDYFILE, BindError, listen
from memhq.models import Project
from tests.support.front import (
    FRONT_ERROR_HEADER,
    front_process,
    gunicorn_process,
    procfile_line,
    wait_for_app,
)
from tests.support.worker import worker_env

ADD = "/v1/memhq/add"
PROMPTLY_S = 2.0


@pytest.fixture(scope="module")
def front(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """gunicorn (one worker) on a Unix socket and the front before it, for the module."""
    directory = tmp_path_factory.mktemp("front")
    sock, env, log = directory / "web.sock", worker_env(), directory / "gunicorn.log"
    with (
        gunicorn_process([f"unix:{sock}"], env, log, workers=1),
        front_process(env, directory / "front.log", upstream=f"unix/{sock}") as url,
    ):
        wait_for_app(url, log)
        yield url


@pytest.fixture(scope="module")
def front_without_web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The front before a socket nobody listens on (gunicorn down or starting)."""
    directory = tmp_path_factory.mktemp("front-alone")
    with front_process(
        worker_env(), directory / "front.log", upstream=f"unix/{directory / 'web.sock'}"
    ) as url:
        yield url


def raw_exchange(url: str, raw: bytes) -> tuple[int, dict[str, str], bytes, float]:
    """Send ``raw`` and read the answer until the server closes or a whole JSON body has come."""
    host, _, port = url.removeprefix("http://").rpartition(":")
    started = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(raw)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
            head, _, body = answer.partition(b"\r\n\r\n")
            length = [line for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:")]
            if length and len(body) >= int(length[0].split(b":")[1]):
                break
    seconds = time.monotonic() - started
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body, seconds


def assert_error_shape(body: bytes | str, code: str) -> dict[str, Any]:
    error = json.loads(body)["error"]
    assert error["code"] == code and error["message"] and error["fields"] == {}, error
    return dict(error)


@pytest.mark.parametrize(
    ("bind", "host", "port"),
    [
        ("127.0.0.1:8000", "127.0.0.1", "8000"),
        ("0.0.0.0:9123", "0.0.0.0", "9123"),
        (":9124", "0.0.0.0", "9124"),
        ("localhost", "localhost", "8000"),
        ("[::]:8080", "::", "8080"),
        ("[::1]:8081", "::1", "8081"),
        ("unix:/tmp/memhq.sock", "unix//tmp/memhq.sock", "8000"),
    ],
)
def test_the_front_listens_where_memhq_bind_says(bind: str, host: str, port: str) -> None:
    assert listen(bind) == (host, port)


def test_the_procfiles_front_reaches_the_procfiles_web_socket() -> None:
    web = shlex.split(procfile_line("web"))
    default = re.search(r"\{\$MEMHQ_FRONT_UPSTREAM:([^}]+)\}", CADDYFILE.read_text())
    assert default and web[web.index("--bind") + 1] == "unix:" + default[1].removeprefix("unix/")


@pytest.mark.parametrize("bind", ["127.0.0.1:http", "unix:", "[::1", "::1:8000"])
def test_a_memhq_bind_the_front_cannot_use_is_refused(bind: str) -> None:
    with pytest.raises(BindError):
        listen(bind)


@pytest.mark.parametrize(("method", "path"), [("GET", "/healthz"), ("POST", ADD)])
def test_gunicorn_down_is_503_with_retry_after_in_the_error_shape(
    front_without_web: str, method: str, path: str
) -> None:
    response = httpx.request(method, f"{front_without_web}{path}", json={"user_id": "u"}, timeout=PROMPTLY_S)
    assert response.status_code == 503
    assert response.headers["content-type"] == "application/json"
    assert response.headers["retry-after"] == str(settings.MEMHQ_RETRY_AFTER_S)
    assert response.headers[FRONT_ERROR_HEADER] == "front"
    assert_error_shape(response.content, "unavailable")


def test_a_declared_body_over_the_limit_is_413_at_once_without_reading_it(front_without_web: str) -> None:
    limit = settings.MEMHQ_MAX_BODY_BYTES
    head = f"POST {ADD} HTTP/1.1\r\nHost: x\r\nContent-Length: {limit + 1}\r\n\r\n"
    status, headers, body, seconds = raw_exchange(front_without_web, head.encode())
    assert status == 413 and seconds < PROMPTLY_S
    assert headers["content-type"] == "application/json"
    assert str(limit) in assert_error_shape(body, "too_large")["message"]


def test_a_body_of_exactly_the_limit_reaches_the_api_whole(
    transactional_db: None, front: str, project: Project
) -> None:
    document = json.dumps({"user_id": "u1", "messages": [{"role": "user", "content": "I moved to Lyon."}]})
    padded = document.encode().ljust(settings.MEMHQ_MAX_BODY_BYTES)  # JSON may end in whitespace
    key: str = project.test_key  # type: ignore[attr-defined]
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    response = httpx.post(f"{front}{ADD}", content=padded, headers=headers, timeout=30)
    assert response.status_code == 202, response.text


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "too_large"),
        (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n", 431, "too_large"),
    ],
)
def test_gunicorns_own_refusals_still_come_as_json_through_the_front(
    front: str, raw: bytes, status: int, code: str
) -> None:
    got, headers, body, _ = raw_exchange(front, raw)
    assert got == status
    assert headers["content-type"] == "application/json"
    assert_error_shape(body, code)


def test_the_app_sees_the_clients_host_and_scheme(
    transactional_db: None, front: str, project: Project
) -> None:
    key: str = project.test_key  # type: ignore[attr-defined]
    response = httpx.post(
        f"{front}/v1/memhq/graph/links",
        json={"user_id": "u1"},
        headers={"Authorization": f"Bearer {key}"},
        timeout=10,
    )
    assert response.status_code == 201, response.text
    assert response.json()["url"].startswith(f"{front}/graph/embed/")
