from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import path
from django.utils import timezone
from rest_framework.test import APIClient
from rest_framework.views import APIView

from ingestion.heartbeat import beat
from memhq.models import Project, WorkerHeartbeat


def assert_shape(response: object, status: int, code: str) -> None:
    assert response.status_code == status  # type: ignore[attr-defined]
    error = response.json()["error"]  # type: ignore[attr-defined]
    assert error["code"] == code
    assert isinstance(error["message"], str)
    assert isinstance(error["fields"], dict)


def test_unknown_url_is_404_in_the_error_shape(db: None) -> None:
    assert_shape(Client().get("/v1/memhq/nothing-here"), 404, "not_found")


class Boom(APIView):
    authentication_classes: list[type] = []
    permission_classes: list[type] = []

    def get(self, request: object) -> None:
        raise RuntimeError("boom")


urlpatterns = [path("boom", Boom.as_view())]


@pytest.mark.urls("tests.api.test_errors_and_docs")
def test_an_unhandled_error_is_500_in_the_error_shape(db: None) -> None:
    client = Client(raise_request_exception=False)
    response = client.get("/boom")
    assert_shape(response, 500, "server_error")


def test_rate_limit_is_429_in_the_error_shape(
    project: Project, api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.core.cache import cache

    from memhq.api.throttling import ProjectRateThrottle

    monkeypatch.setattr(ProjectRateThrottle, "THROTTLE_RATES", {"project": "2/min"})
    cache.clear()
    responses = [api.get("/v1/memhq/episodes") for _ in range(3)]
    assert [response.status_code for response in responses] == [200, 200, 429]
    assert_shape(responses[2], 429, "rate_limited")


def test_openapi_schema_and_swagger_ui_are_served_without_a_key(db: None) -> None:
    schema = Client().get("/v1/memhq/openapi.json")
    assert schema.status_code == 200
    document = schema.json()
    assert document["openapi"].startswith("3.")
    assert "/v1/memhq/add" in document["paths"]
    assert "/v1/memhq/episodes/{episode_id}" in document["paths"]
    docs = Client().get("/docs")
    assert docs.status_code == 200
    assert b"swagger" in docs.content.lower()


def test_healthz_reports_database_broker_and_workers(db: None) -> None:
    beat("celery@test", timezone.now())  # a worker announced itself
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "broker": "ok", "workers": "ok"}}


def test_healthz_is_503_when_no_worker_consumes(db: None, settings: Any) -> None:
    assert_shape(Client().get("/healthz"), 503, "unavailable")  # nobody ever announced itself
    WorkerHeartbeat.objects.create(
        node="celery@gone",
        pid=1,
        started_at=timezone.now(),
        seen_at=timezone.now() - timedelta(seconds=settings.MEMHQ_WORKER_HEARTBEAT_TTL_S + 1),
    )
    response = Client().get("/healthz")
    assert_shape(response, 503, "unavailable")
    assert set(response.json()["error"]["fields"]) == {"workers"}


def test_healthz_is_503_when_the_broker_is_down(db: None) -> None:
    from config.celery import app

    original = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:1/0"
    try:
        response = Client().get("/healthz")
    finally:
        app.conf.broker_url = original
    assert_shape(response, 503, "unavailable")
    assert "broker" in response.json()["error"]["fields"]


handler500 = "memhq.api.errors.json_500"


def test_an_unknown_cursor_is_400_with_the_field(api: APIClient) -> None:
    for url in ("/v1/memhq/episodes?cursor=not-a-cursor", "/v1/memhq/memories?user_id=u1&cursor=abc"):
        response = api.get(url)
        assert_shape(response, 400, "invalid")
        assert "cursor" in response.json()["error"]["fields"]


def test_a_cursor_with_a_malformed_position_is_400_not_500(api: APIClient) -> None:
    response = api.get("/v1/memhq/episodes?cursor=bz0xJnA9Mg%3D%3D")  # base64 of "o=1&p=2": p is no date
    assert_shape(response, 400, "invalid")
