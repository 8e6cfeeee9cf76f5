from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from config.celery import app
from memhq.models import Project, WebhookDelivery, WebhookEndpoint
from memhq.services.webhooks import EVENT_TYPES, endpoint_create
from tests.webhooks.receiver import Receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def eager() -> Iterator[None]:
    """Published tasks run in this process at once (the code path up to ``.delay()`` is the real one)."""
    saved = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    try:
        yield
    finally:
        app.conf.task_always_eager, app.conf.task_eager_propagates = saved


@pytest.fixture
def fast_retries(settings: Any) -> None:
    """A compressed retry schedule: three retries, due at once, no jitter; sweeps re-publish at once."""
    settings.MEMHQ_WEBHOOKS_RETRY_SCHEDULE_S = [0.0, 0.0, 0.0]
    settings.MEMHQ_WEBHOOKS_RETRY_JITTER = 0.0
    settings.MEMHQ_WEBHOOKS_REQUEUE_AFTER_S = 0.0


def make_endpoint(
    project: Project, url: str, event_types: tuple[str, ...] = EVENT_TYPES
) -> tuple[WebhookEndpoint, str]:
    issued = endpoint_create(project=project, url=url, event_types=list(event_types))
    return issued.endpoint, issued.secret


def reload(delivery: WebhookDelivery) -> WebhookDelivery:
    return WebhookDelivery.objects.get(pk=delivery.pk)
