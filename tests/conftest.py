from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from rest_framework.test import APIClient

from memhq.models import Project
from memhq.services.tenancy import project_create
from tests.support.worker import celery_process, relay_process, worker_args, worker_env

pytest_plugins = ["tests.support.fault_table"]  # the fault suite's table (make faults, make test)


def pytest_configure(config: pytest.Config) -> None:
    """Pages render {% static %} through the manifest: collect once per session (xdist: in the controller)."""
    if not hasattr(config, "workerinput"):
        from memhq.ops.static import collect_static_if_stale

        collect_static_if_stale()


@pytest.fixture(autouse=True)
def _test_settings(settings: Any) -> None:
    settings.MEMHQ_WEBHOOKS_ALLOW_PRIVATE = True


@pytest.fixture(autouse=True)
def _fresh_recall_statement() -> None:
    """Recall's SQL is built once per process from module constants; tests that patch one get it rebuilt."""
    from retrieval import query

    query.statement.cache_clear()


@pytest.fixture
def project(db: None) -> Project:
    project, issued = project_create(name="acme")
    project.test_key = issued.plaintext  # type: ignore[attr-defined]
    return project


@pytest.fixture
def other_project(db: None) -> Project:
    project, issued = project_create(name="globex")
    project.test_key = issued.plaintext  # type: ignore[attr-defined]
    return project


def client_for(project: Project) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {project.test_key}")  # type: ignore[attr-defined]
    return client


@pytest.fixture
def api(project: Project) -> APIClient:
    return client_for(project)


@pytest.fixture
def other_api(other_project: Project) -> APIClient:
    return client_for(other_project)


@pytest.fixture
def broker() -> redis.Redis:
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.flushdb()
    return client


@pytest.fixture
def celery_worker_process(transactional_db: None, broker: redis.Redis, tmp_path: Path) -> Iterator[Any]:
    """A real worker process (prefork, one child) consuming from the real broker, on the test database, with
    the outbox relay that publishes what /add commits."""
    env = worker_env()
    with (
        relay_process(env, tmp_path / "relay.log"),
        celery_process(worker_args(), env, tmp_path / "worker.log", ready="ready.") as process,
    ):
        yield process


DEAD_BROKER = "redis://127.0.0.1:1/0"


def _point_celery_at(url: str) -> None:
    from config.celery import app

    app.conf.broker_url = url
    app._pool = None  # the connection and producer pools were built for the old URL
    app.amqp._producer_pool = None


@pytest.fixture
def broker_down() -> Iterator[Callable[[], None]]:
    """Celery publishes to a port nothing listens on; call the yielded function to bring the broker back."""
    from config.celery import app

    original = app.conf.broker_url
    _point_celery_at(DEAD_BROKER)
    yield lambda: _point_celery_at(original)
    _point_celery_at(original)
