"""End to end with a real worker process on the real broker: on-commit publication and the beat sweep."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from standardwebhooks.webhooks import Webhook

from memhq.models import DeliveryStatus, Project, WebhookDelivery
from memhq.services.webhooks import event_emit
from memhq.tasks import sweep
from tests.support.worker import celery_process, worker_args, worker_env
from tests.webhooks.conftest import make_endpoint
from tests.webhooks.receiver import Receiver, Reply


@pytest.fixture
def webhook_worker(transactional_db: None, broker: redis.Redis, tmp_path: Path) -> Iterator[Any]:
    env = worker_env(
        MEMHQ_WEBHOOKS_ALLOW_PRIVATE="1",
        MEMHQ_WEBHOOKS_RETRY_SCHEDULE_S="0,0",
        MEMHQ_WEBHOOKS_RETRY_JITTER="0",
        MEMHQ_WEBHOOKS_REQUEUE_AFTER_S="0",
    )
    with celery_process(worker_args(), env, tmp_path / "worker.log", ready="ready.") as process:
        yield process


def test_a_committed_event_reaches_the_receiver_through_a_real_worker_and_a_retry_through_the_sweep(
    webhook_worker: Any, project: Project, receiver: Receiver
) -> None:
    endpoint, secret = make_endpoint(project, receiver.url)
    receiver.reply(Reply(status=503))
    event = event_emit(
        project_id=project.pk, user_id="u1", type="memories.changed", payload={"memory_ids": ["m"]}
    )
    [first] = receiver.wait_for(1)  # published on commit (autocommit here), answered 503
    delivery = WebhookDelivery.objects.get(event=event, endpoint=endpoint)
    wait_for_status(delivery, DeliveryStatus.PENDING)
    sweep.delay()  # what beat does every MEMHQ_WEBHOOKS_SWEEP_EVERY_S
    _, second = receiver.wait_for(2)
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == str(event.pk)
    assert Webhook(secret).verify(second.body, second.headers)["data"] == {"memory_ids": ["m"]}
    assert wait_for_status(delivery, DeliveryStatus.DELIVERED).attempts == 2


def wait_for_status(delivery: WebhookDelivery, status: str, timeout_s: float = 30.0) -> WebhookDelivery:
    deadline = time.monotonic() + timeout_s
    while True:
        current = WebhookDelivery.objects.get(pk=delivery.pk)
        if current.status == status:
            return current
        assert time.monotonic() < deadline, f"delivery still {current.status}"
        time.sleep(0.05)
