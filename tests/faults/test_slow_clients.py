"""200 clients sending /add bodies one byte every 2 s: the API keeps answering others through the front.

Real processes on loopback: gunicorn from the Procfile's web line (2 workers × 4 threads) on a Unix socket,
and the Procfile's front (config/front.py → Caddy with config/Caddyfile) before it. Each slow client sends a
POST /v1/memhq/add head announcing a 100 KB body, then one byte every 2 s. While they are connected
(``WINDOW_S``), /healthz must answer every probe within 2 s and an /add with a whole body must be accepted;
gunicorn must not see a single slow request (Caddy reads a body whole before it forwards the request).
``MEMHQ_FAULT_SLOW_CLIENTS`` sets how many (200). The second test shows the problem the front solves: 24 such
clients connected to gunicorn itself (one worker here, so that every connection queues for the same 4
threads) take all its threads, and /healthz stops answering."""

from __future__ import annotations

import contextlib
import os
import resource
import selectors
import socket
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from memhq.models import Project
from tests.support.front import FRONT_ERROR_HEADER, free_port, front_process, gunicorn_process, wait_for_app
from tests.support.worker import worker_env

SLOW_CLIENTS = int(os.environ.get("MEMHQ_FAULT_SLOW_CLIENTS", "200"))
BARE_SLOW_CLIENTS = 24  # 6 per thread of the bare gunicorn below (1 worker × 4 threads)
BODY_BYTES = 100_000
TRICKLE_S = 2.0
WINDOW_S = 12.0  # well inside the Caddyfile's read_body (30 s): every slow client is still connected
PROBE_EVERY_S = 0.5
ADD_EVERY = 4  # probes
ANSWER_WITHIN_S = 2.0
BARE_PROBES = 3
WORKERS = 2
ADD = "/v1/memhq/add"


class SlowClients:
    """``count`` connections, each sending a POST /add head that announces ``BODY_BYTES`` and then one byte
    of the body every ``TRICKLE_S`` seconds (one thread trickles for all of them)."""

    def __init__(self, address: tuple[str, int], count: int, key: str) -> None:
        self.address, self.count = address, count
        self.head = (
            f"POST {ADD} HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\nAuthorization: Bearer {key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {BODY_BYTES}\r\n\r\n"
        ).encode()
        self.sockets: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._trickle, daemon=True)

    def __enter__(self) -> SlowClients:
        for _ in range(self.count):
            sock = socket.create_connection(self.address, timeout=5)
            sock.sendall(self.head + b" ")  # the body's first byte (JSON whitespace)
            self.sockets.append(sock)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        for sock in self.sockets:
            sock.close()

    def _trickle(self) -> None:
        while not self._stop.wait(TRICKLE_S):
            for sock in self.sockets:
                with contextlib.suppress(OSError):  # a closed one is counted by connected()
                    sock.send(b" ")

    def connected(self) -> int:
        """How many are still waiting: neither answered nor closed by the server."""
        with selectors.DefaultSelector() as selector:
            for sock in self.sockets:
                selector.register(sock, selectors.EVENT_READ)
            answered = {key.fileobj for key, _ in selector.select(timeout=0)}
        return sum(1 for sock in self.sockets if sock not in answered)


@pytest.fixture(autouse=True)
def _enough_file_descriptors() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = SLOW_CLIENTS + 512
    if soft != resource.RLIM_INFINITY and soft < wanted:
        limit = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))


@pytest.fixture
def front(transactional_db: None, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """gunicorn (the Procfile's web line, ``WORKERS`` workers) on a Unix socket and the front before it:
    (the front's URL, gunicorn's log)."""
    sock, env, log = tmp_path / "web.sock", worker_env(), tmp_path / "gunicorn.log"
    with (
        gunicorn_process([f"unix:{sock}"], env, log, workers=WORKERS),
        front_process(env, tmp_path / "front.log", upstream=f"unix/{sock}") as url,
    ):
        wait_for_app(url, log)
        yield url, log


@pytest.fixture
def bare(transactional_db: None, tmp_path: Path) -> Iterator[str]:
    """gunicorn alone on a TCP port, one worker (4 threads): every connection waits for the same threads."""
    port, log = free_port(), tmp_path / "gunicorn.log"
    with gunicorn_process([f"127.0.0.1:{port}"], worker_env(), log, workers=1):
        url = f"http://127.0.0.1:{port}"
        wait_for_app(url, log)
        yield url


def probe(url: str) -> tuple[float, httpx.Response]:
    started = time.monotonic()
    response = httpx.get(f"{url}/healthz", timeout=ANSWER_WITHIN_S)
    return time.monotonic() - started, response


def answered_by_the_app(response: httpx.Response) -> bool:
    """200, or /healthz's own 503 naming only the workers (none runs here): not the front's 503."""
    if FRONT_ERROR_HEADER in response.headers:
        return False
    return response.status_code == 200 or (
        response.status_code == 503 and set(response.json()["error"]["fields"]) == {"workers"}
    )


def address(url: str) -> tuple[str, int]:
    host, _, port = url.removeprefix("http://").rpartition(":")
    return host, int(port)


def test_healthz_answers_within_2_s_and_add_is_accepted_while_200_slow_clients_send_bodies(
    front: tuple[str, Path], project: Project, record_property: Any
) -> None:
    url, log = front
    key: str = project.test_key  # type: ignore[attr-defined]
    headers = {"Authorization": f"Bearer {key}"}
    latencies: list[float] = []
    adds: list[int] = []
    with SlowClients(address(url), SLOW_CLIENTS, key) as slow:
        started = time.monotonic()
        while time.monotonic() - started < WINDOW_S:
            seconds, response = probe(url)
            latencies.append(seconds)
            assert answered_by_the_app(response), (response.status_code, response.text)
            if len(latencies) % ADD_EVERY == 0:
                body = {"user_id": "u1", "messages": [{"role": "user", "content": f"Note {len(adds)}."}]}
                answer = httpx.post(f"{url}{ADD}", json=body, headers=headers, timeout=ANSWER_WITHIN_S)
                adds.append(answer.status_code)
            time.sleep(PROBE_EVERY_S)
        still_connected = slow.connected()
        forwarded_adds = log.read_text(errors="replace").count(f"POST {ADD} ")
    record_property("trials", SLOW_CLIENTS)
    p50_ms, max_ms = statistics.median(latencies) * 1000, max(latencies) * 1000
    print(
        f"\n{SLOW_CLIENTS} slow clients, through the front: /healthz p50 {p50_ms:.0f} ms, max {max_ms:.0f} ms"
    )
    assert max(latencies) < ANSWER_WITHIN_S
    assert adds and all(status == 202 for status in adds), adds
    assert still_connected == SLOW_CLIENTS, "the front cut or answered slow clients inside read_body"
    assert forwarded_adds == len(adds), "a slow client's request reached gunicorn before its body was whole"


def test_gunicorn_without_the_front_stops_answering_with_24_slow_clients(
    bare: str, project: Project, record_property: Any
) -> None:
    key: str = project.test_key  # type: ignore[attr-defined]
    _, response = probe(bare)
    assert answered_by_the_app(response)  # it answers before
    stalled = 0
    with SlowClients(address(bare), BARE_SLOW_CLIENTS, key):
        time.sleep(1.0)  # every slow request is read up to its body by a gunicorn thread
        for _ in range(BARE_PROBES):
            try:
                probe(bare)
            except httpx.TimeoutException:
                stalled += 1
    record_property("trials", BARE_PROBES)
    assert stalled == BARE_PROBES, f"{BARE_PROBES - stalled} of {BARE_PROBES} probes answered within 2 s"
