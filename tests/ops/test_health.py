"""/healthz names a failed dependency but never shows its exception (hosts, ports) to anyone."""

from __future__ import annotations

import pytest
from django.test import Client


def test_a_broker_failure_shows_no_exception_text(db: None, caplog: pytest.LogCaptureFixture) -> None:
    from config.celery import app

    original = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:1/0"
    try:
        response = Client().get("/healthz")
    finally:
        app.conf.broker_url = original
    assert response.status_code == 503
    assert response.json()["error"]["fields"]["broker"] == ["unreachable (details in the web log)"]
    assert "127.0.0.1" not in response.content.decode()
    assert any("broker unreachable" in record.getMessage() for record in caplog.records)
