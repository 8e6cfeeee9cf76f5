"""PostgreSQL stopped, or frozen (SIGSTOP), under /add load from HTTP clients: every answer is a 202 or a 503
with Retry-After within the timeouts, no 2xx without a commit, each client's retry of a 503 (same
Idempotency-Key) is stored once, and every stored episode completes once the database is back.

Real processes on loopback against a private copy of the test database (tests/support/private_postgres.py):
gunicorn as the Procfile runs it, a Celery worker and the outbox relay. ``MEMHQ_FAULT_DB_OUTAGE_S`` sets how
long the database is away (8 s in ``make test``, 30 s in ``make faults``); the web process runs with a 2 s
connect timeout and a 2 s query deadline, so an answer held for the whole outage fails the test."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from django.conf import settings

from memhq.models import Project
from tests.support.front import free_port, gunicorn_process
from tests.support.private_postgres import PrivateServer, private_copy
from tests.support.worker import celery_process, relay_process, worker_args, worker_env

OUTAGE_S = float(os.environ.get("MEMHQ_FAULT_DB_OUTAGE_S", "8"))
CONNECT_TIMEOUT_S = 2  # DATABASE_CONNECT_TIMEOUT_S (default 3) of the web process
QUERY_TIMEOUT_S = 2.0  # MEMHQ_REQUEST_QUERY_TIMEOUT_S (default 10)
CLIENTS = 4
PAUSE_S = 0.1  # between one client's requests
BEFORE_S = 2.0
AFTER_S = 8.0  # longer than Retry-After (5 s): the clients' retries land
#: No answer may take longer than a cut call and a failed reconnect, plus this (a busy 2-core box).
SLACK_S = 3.0
COMPLETION_TIMEOUT_S = 180.0


@dataclass
class Answer:
    key: str
    body: bytes
    status: int  # 0: no HTTP answer at all (a timeout or a refused connection)
    seconds: float
    retry_after: str | None
    episode_id: str | None


@contextmanager
def web_process(env: dict[str, str], log: Path) -> Iterator[str]:
    """gunicorn as the Procfile runs it (one worker) on a free port; yields its base URL."""
    bind = f"127.0.0.1:{free_port()}"
    with gunicorn_process([bind], env, log, workers=1):
        yield f"http://{bind}"


class Load:
    """``CLIENTS`` threads posting /add until stopped, as a well-behaved client does: each new request with
    its own Idempotency-Key, and a 503 retried with the same key after its Retry-After."""

    def __init__(self, url: str, key: str) -> None:
        self.url, self.headers = url, {"Authorization": f"Bearer {key}"}
        self.answers: list[Answer] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._run, args=(n,)) for n in range(CLIENTS)]

    def __enter__(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()

    def _run(self, client: int) -> None:
        with httpx.Client(timeout=60) as http:
            n, retrying = 0, False
            while not self._stop.is_set():
                if not retrying:
                    n += 1
                key = f"c{client}-{n}"
                body = (
                    '{"user_id": "load", "messages": [{"role": "user", '
                    f'"content": "Note {key}: I packed the blue tent for the trip."}}]}}'
                ).encode()
                answer = post(http, self.url, self.headers, key, body)
                with self._lock:
                    self.answers.append(answer)
                retrying = answer.status == 503
                self._stop.wait(float(answer.retry_after or PAUSE_S) if retrying else PAUSE_S)


def post(http: httpx.Client, url: str, headers: dict[str, str], key: str, body: bytes) -> Answer:
    started = time.monotonic()
    try:
        response = http.post(
            f"{url}/v1/memhq/add",
            content=body,
            headers={**headers, "Idempotency-Key": key, "Content-Type": "application/json"},
        )
    except httpx.HTTPError:
        return Answer(key, body, 0, time.monotonic() - started, None, None)
    episode_id = response.json().get("episode_id") if response.status_code < 300 else None
    return Answer(
        key,
        body,
        response.status_code,
        time.monotonic() - started,
        response.headers.get("Retry-After"),
        episode_id,
    )


def outage(server: PrivateServer, fault: str) -> None:
    if fault == "stopped":
        server.stop("fast")
        time.sleep(OUTAGE_S)
        server.start()
    else:
        frozen = server.freeze()
        time.sleep(OUTAGE_S)
        PrivateServer.thaw(frozen)


def stored(server: PrivateServer, keys: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Idempotency key → the (episode id, status) rows stored for it."""
    with psycopg.connect(server.url()) as connection:
        rows = connection.execute(
            "SELECT idempotency_key, id::text, status FROM memhq_episode WHERE idempotency_key = ANY(%s)",
            [keys],
        ).fetchall()
    found: dict[str, list[tuple[str, str]]] = {key: [] for key in keys}
    for key, episode_id, status in rows:
        found[key].append((episode_id, status))
    return found


def wait_completed(server: PrivateServer, keys: list[str]) -> dict[str, list[tuple[str, str]]]:
    deadline = time.monotonic() + COMPLETION_TIMEOUT_S
    while True:
        found = stored(server, keys)
        if all(rows and rows[0][1] == "completed" for rows in found.values()):
            return found
        if time.monotonic() > deadline:
            waiting = {key: rows for key, rows in found.items() if not rows or rows[0][1] != "completed"}
            pytest.fail(f"{len(waiting)} episodes did not complete: {list(waiting.items())[:5]}")
        time.sleep(0.5)


@pytest.mark.parametrize("fault", ["stopped", "frozen"])
def test_every_answer_is_202_or_a_timely_503_and_every_stored_episode_completes(
    transactional_db: None, project: Project, tmp_path: Path, fault: str, record_property: Any
) -> None:
    budget = QUERY_TIMEOUT_S + CONNECT_TIMEOUT_S + SLACK_S  # a call cut at its deadline, then a reconnect
    # Not under tmp_path: another pytest session starting makes /tmp/pytest-of-<user> private again, and
    # the server runs as the embedded server's own user.
    directory = Path(tempfile.mkdtemp(prefix="memhq-fault-db-"))
    with private_copy(settings.DATABASES["default"], directory) as server:
        env = worker_env(DATABASE_URL=server.url(), MEMHQ_RELAY_BACKOFF_MAX_S="0.5")
        web_env = {
            **env,
            "DATABASE_CONNECT_TIMEOUT_S": str(CONNECT_TIMEOUT_S),
            "MEMHQ_REQUEST_QUERY_TIMEOUT_S": str(QUERY_TIMEOUT_S),
        }
        with (
            relay_process(env, tmp_path / "relay.log") as relay,
            celery_process(worker_args(), env, tmp_path / "worker.log", ready="ready.") as worker,
            web_process(web_env, tmp_path / "web.log") as url,
        ):
            with Load(url, project.test_key) as load:  # type: ignore[attr-defined]
                time.sleep(BEFORE_S)
                outage(server, fault)
                time.sleep(AFTER_S)
            answers = load.answers
            refused = [answer for answer in answers if answer.status == 503]
            last = {answer.key: answer for answer in answers}  # the load stopped before these were retried
            unanswered = [answer for answer in last.values() if answer.status == 503]
            with httpx.Client(timeout=60) as http:
                headers = {"Authorization": f"Bearer {project.test_key}"}  # type: ignore[attr-defined]
                retries = [post(http, url, headers, answer.key, answer.body) for answer in unanswered]
            keys = list(last)
            found = wait_completed(server, keys)
            assert worker.poll() is None, (tmp_path / "worker.log").read_text()[-3000:]
            assert relay.poll() is None, (tmp_path / "relay.log").read_text()[-3000:]

    record_property("trials", len(answers))
    accepted = [answer for answer in answers if answer.status == 202]
    slowest = max(answer.seconds for answer in answers)
    print(
        f"\ndatabase {fault} {OUTAGE_S:.0f} s: {len(answers)} requests for {len(keys)} episodes, "
        f"{len(accepted)} × 202, "
        f"{len(refused)} × 503 (slowest {max((a.seconds for a in refused), default=0):.1f} s), "
        f"slowest answer {slowest:.1f} s"
    )
    unexpected = [(answer.key, answer.status) for answer in answers if answer.status not in (202, 503)]
    assert not unexpected, f"answers other than 202/503: {unexpected[:10]}"
    late = [(answer.key, round(answer.seconds, 1)) for answer in answers if answer.seconds > budget]
    assert not late, f"answers later than {budget} s: {late[:10]}"
    assert all(answer.retry_after for answer in refused), "a 503 without Retry-After"
    assert all(retry.status in (200, 202) for retry in retries), [r.status for r in retries]
    for answer in accepted:  # a 2xx only after a durable commit: its row survived the outage
        assert [episode_id for episode_id, _ in found[answer.key]] == [answer.episode_id]
    assert all(len(rows) == 1 for rows in found.values()), "an episode stored twice or not at all"
