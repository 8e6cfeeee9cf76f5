"""A database that stops answering on an open connection (its backend SIGSTOPped, as a frozen server or a
silently dropped network path looks to the client): /add (with Retry-After) and /healthz answer 503 within
``MEMHQ_REQUEST_QUERY_TIMEOUT_S`` instead of hanging, and the next request works once it answers again."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import pytest
from django.db import close_old_connections, connection
from rest_framework.test import APIClient

TIMEOUT_S = 1.0
SLACK_S = 2.0


def freeze_own_backend() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = int(cursor.fetchone()[0])
    os.kill(pid, signal.SIGSTOP)
    return pid


@pytest.mark.parametrize("path", ["/v1/memhq/add", "/healthz"])
def test_a_frozen_database_answers_503_within_the_timeout(
    transactional_db: None, api: APIClient, settings: Any, path: str
) -> None:
    settings.MEMHQ_REQUEST_QUERY_TIMEOUT_S = TIMEOUT_S
    body = {"user_id": "f1", "messages": [{"role": "user", "content": "I moved to Tromsø."}]}
    pid = freeze_own_backend()
    try:
        started = time.monotonic()
        response = APIClient().get(path) if path == "/healthz" else api.post(path, body, format="json")
        elapsed = time.monotonic() - started
    finally:
        os.kill(pid, signal.SIGCONT)
    assert response.status_code == 503, response.content
    if path != "/healthz":  # /healthz names the failed dependency instead
        assert response.headers["Retry-After"]
    assert elapsed < TIMEOUT_S + SLACK_S, f"answered after {elapsed:.1f} s"
    close_old_connections()  # what a server does between requests (the test client skips it)
    again = api.post("/v1/memhq/add", body, format="json")  # on a fresh connection
    assert again.status_code == 202, again.content
