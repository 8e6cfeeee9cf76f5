"""A receiver that is down and comes back gets every event, driven only by sweeps (at-least-once delivery;
receivers deduplicate by webhook-id)."""

from __future__ import annotations

import time
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from memhq.models import DeliveryStatus, Project, WebhookDelivery
from memhq.services.webhooks import event_emit
from memhq.webhooks.dispatch import sweep
from tests.webhooks.conftest import make_endpoint
from tests.webhooks.receiver import Receiver

pytestmark = pytest.mark.fault  # listed in the fault suite's table

EVENTS = 5
SWEEP_ROUNDS = 20


def test_a_receiver_that_was_down_gets_every_event_once_it_is_back(
    settings: Any, project: Project, receiver: Receiver, eager: None
) -> None:
    settings.MEMHQ_WEBHOOKS_RETRY_SCHEDULE_S = [0.05, 0.05, 0.05, 0.05, 0.05]
    settings.MEMHQ_WEBHOOKS_RETRY_JITTER = 0.0
    settings.MEMHQ_WEBHOOKS_REQUEUE_AFTER_S = 0.0
    make_endpoint(project, receiver.url)
    receiver.stop()
    events = [
        event_emit(project_id=project.pk, user_id="u1", type="memories.changed", payload={"n": n})
        for n in range(EVENTS)
    ]
    assert sweep() == EVENTS  # every first attempt fails: connection refused
    assert set(WebhookDelivery.objects.values_list("status", flat=True)) == {DeliveryStatus.PENDING}
    time.sleep(0.1)
    sweep()  # second attempts fail too
    receiver.start()  # back, on the same port
    for _ in range(SWEEP_ROUNDS):
        time.sleep(0.06)
        sweep()
        if not WebhookDelivery.objects.exclude(status=DeliveryStatus.DELIVERED).exists():
            break
    assert set(WebhookDelivery.objects.values_list("status", flat=True)) == {DeliveryStatus.DELIVERED}
    received = Counter(receiver.webhook_ids())
    assert received == Counter({str(event.pk): 1 for event in events})  # each event exactly once
    assert all(attempts == 3 for attempts in WebhookDelivery.objects.values_list("attempts", flat=True))


def test_a_delivery_whose_worker_died_mid_attempt_is_sent_again_by_the_sweep_after_its_lease(
    fast_retries: None, project: Project, receiver: Receiver, eager: None
) -> None:
    make_endpoint(project, receiver.url)
    event = event_emit(project_id=project.pk, user_id="u1", type="memories.changed", payload={})
    held = timezone.now() + timedelta(seconds=60)
    WebhookDelivery.objects.update(status=DeliveryStatus.SENDING, attempts=1, lease_expires_at=held)
    assert sweep() == 0  # the lease still holds: another worker may be sending right now
    WebhookDelivery.objects.update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert sweep() == 1
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == DeliveryStatus.DELIVERED and delivery.attempts == 2
    assert receiver.webhook_ids() == [str(event.pk)]
