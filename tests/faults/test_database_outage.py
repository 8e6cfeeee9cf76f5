"""A database that is down answers 503 with Retry-After in the error shape, within the connect timeout —
never a 500, never a 2xx without a commit."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from memhq.models import Episode

PAYLOAD = {"user_id": "u1", "messages": [{"role": "user", "content": "I live in Oslo."}]}


@pytest.fixture
def database_down(transactional_db: None) -> Iterator[None]:
    """This process's connection points at a port nothing listens on (the database 'stopped')."""
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(HOST="127.0.0.1", PORT="1")
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)


def test_add_is_503_with_retry_after_while_the_database_is_down(
    api: APIClient, database_down: None, settings: Any
) -> None:
    started = time.monotonic()
    response = api.post("/v1/memhq/add", PAYLOAD, format="json")
    assert time.monotonic() - started < 5
    assert response.status_code == 503
    assert response["Retry-After"] == str(settings.MEMHQ_RETRY_AFTER_S)
    error = response.json()["error"]
    assert error["code"] == "unavailable" and isinstance(error["fields"], dict)


def test_recall_and_healthz_are_503_too(api: APIClient, database_down: None) -> None:
    response = api.post("/v1/memhq/recall", {"user_id": "u1", "query": "where do I live?"}, format="json")
    assert response.status_code == 503 and response["Retry-After"]
    health = Client().get("/healthz")
    assert health.status_code == 503 and "database" in health.json()["error"]["fields"]


def test_nothing_was_stored_and_add_works_again_once_it_is_back(
    api: APIClient, transactional_db: None
) -> None:
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(HOST="127.0.0.1", PORT="1")
    try:
        assert api.post("/v1/memhq/add", PAYLOAD, format="json").status_code == 503
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)
    assert not Episode.objects.exists()
    assert api.post("/v1/memhq/add", PAYLOAD, format="json").status_code == 202
