"""/healthz follows the workers: healthy while a real worker consumes, 503 soon after it is killed."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

from django.test import Client

from tests.support.worker import celery_process, stop, worker_args, worker_env

HEARTBEAT_S = 0.5
TTL_S = 2.0


def wait_for_health(status: int, timeout_s: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        response = Client().get("/healthz")
        if response.status_code == status:
            return dict(response.json())
        assert time.monotonic() < deadline, response.json()
        time.sleep(0.1)


def test_healthz_is_unhealthy_soon_after_the_only_worker_dies(
    transactional_db: None, tmp_path: Path, settings: Any
) -> None:
    settings.MEMHQ_WORKER_HEARTBEAT_TTL_S = TTL_S
    wait_for_health(503, 1.0)  # no worker yet
    env = worker_env(MEMHQ_WORKER_HEARTBEAT_S=str(HEARTBEAT_S))
    with celery_process(worker_args(), env, tmp_path / "worker.log", ready="ready.") as worker:
        assert wait_for_health(200, 10.0)["checks"]["workers"] == "ok"
        stop(worker, sig=signal.SIGKILL)
        killed = time.monotonic()
        body = wait_for_health(503, TTL_S + 3.0)
    assert set(body["error"]["fields"]) == {"workers"}
    assert time.monotonic() - killed <= TTL_S + 3.0
