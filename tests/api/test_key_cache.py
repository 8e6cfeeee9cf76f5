"""A web process keeps the API keys it has read for MEMHQ_KEY_CACHE_S: /add is then one INSERT, a key
revoked through this process is refused at once, one revoked elsewhere within the TTL."""

from __future__ import annotations

import time
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from memhq.models import ApiKey, Project
from memhq.services.tenancy import api_key_revoke

PAYLOAD = {"user_id": "u1", "messages": [{"role": "user", "content": "I keep bees."}]}


def add(api: APIClient) -> int:
    return int(api.post("/v1/memhq/add", PAYLOAD, format="json").status_code)


def test_a_known_key_costs_add_no_statement_of_its_own(project: Project, api: APIClient) -> None:
    assert add(api) == 202  # reads the key (and touches last_used_at)
    with CaptureQueriesContext(connection) as queries:
        assert add(api) == 202
    statements = [
        query["sql"] for query in queries.captured_queries if "SAVEPOINT" not in query["sql"]
    ]  # the savepoints are the test's own transaction
    assert len(statements) == 1 and statements[0].lstrip().upper().startswith("INSERT"), statements


def test_a_key_revoked_here_is_refused_at_once(project: Project, api: APIClient) -> None:
    assert add(api) == 202
    api_key_revoke(prefix=project.api_keys.get().prefix)
    assert add(api) == 401


def test_a_key_revoked_elsewhere_is_refused_within_the_ttl(
    project: Project, api: APIClient, settings: Any
) -> None:
    settings.MEMHQ_KEY_CACHE_S = 0.3
    assert add(api) == 202
    ApiKey.objects.filter(project=project).update(revoked_at=timezone.now())  # another process did it
    deadline = time.monotonic() + 5
    while add(api) == 202:
        assert time.monotonic() < deadline, "a revoked key was still accepted"
        time.sleep(0.05)
    assert add(api) == 401


def test_with_no_ttl_every_request_reads_the_key(project: Project, api: APIClient, settings: Any) -> None:
    settings.MEMHQ_KEY_CACHE_S = 0
    assert add(api) == 202
    ApiKey.objects.filter(project=project).update(revoked_at=timezone.now())
    assert add(api) == 401
