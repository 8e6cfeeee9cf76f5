"""event_emit: one delivery per subscribed active endpoint of the event's project, in the same transaction."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from django.conf import settings
from django.db import transaction

from memhq.models import DeliveryStatus, Project, WebhookDelivery, WebhookEvent
from memhq.services.webhooks import endpoint_update, event_emit
from memhq.webhooks.dispatch import sweep
from tests.webhooks.conftest import make_endpoint
from tests.webhooks.receiver import Receiver

WEBHOOKS_QUEUE = settings.MEMHQ_QUEUES["webhooks"]


def emit(project: Project, type: str = "memories.changed") -> WebhookEvent:
    return event_emit(project_id=project.pk, user_id="u1", type=type, payload={"memory_ids": ["m1"]})


def test_an_event_gets_one_delivery_per_active_endpoint_subscribed_to_its_type(project: Project) -> None:
    changed, _ = make_endpoint(project, "https://8.8.8.8/changed", ("memories.changed",))
    everything, _ = make_endpoint(project, "https://8.8.8.8/all")
    make_endpoint(project, "https://8.8.8.8/failures", ("episode.failed",))
    inactive, _ = make_endpoint(project, "https://8.8.8.8/off")
    endpoint_update(endpoint=inactive, is_active=False)
    event = emit(project)
    deliveries = WebhookDelivery.objects.filter(event=event)
    assert {delivery.endpoint_id for delivery in deliveries} == {changed.pk, everything.pk}
    assert all(delivery.status == DeliveryStatus.PENDING for delivery in deliveries)
    assert all(delivery.next_attempt_at is not None for delivery in deliveries)


def test_events_of_one_project_never_reach_another_projects_endpoints(
    project: Project, other_project: Project, receiver: Receiver, eager: None, fast_retries: None
) -> None:
    mine, _ = make_endpoint(project, receiver.url)
    make_endpoint(other_project, receiver.url.replace("/hook", "/other"))
    event = emit(project)
    assert list(WebhookDelivery.objects.filter(event=event).values_list("endpoint", flat=True)) == [mine.pk]
    sweep()
    assert [request.path for request in receiver.requests] == ["/hook"]
    assert receiver.webhook_ids() == [str(event.pk)]


def test_an_unknown_event_type_is_refused(project: Project) -> None:
    with pytest.raises(ValueError, match="unknown webhook event type"):
        emit(project, type="memories.exploded")
    assert not WebhookEvent.objects.exists()


def test_the_event_and_its_deliveries_roll_back_with_the_change_they_report(project: Project) -> None:
    make_endpoint(project, "https://8.8.8.8/hook")
    with pytest.raises(RuntimeError), transaction.atomic():
        emit(project)
        raise RuntimeError("the change failed")
    assert not WebhookEvent.objects.exists() and not WebhookDelivery.objects.exists()


def test_deliver_tasks_are_published_only_after_the_commit(
    project: Project, broker: redis.Redis, django_capture_on_commit_callbacks: Any
) -> None:
    make_endpoint(project, "https://8.8.8.8/a")
    make_endpoint(project, "https://8.8.8.8/b")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        emit(project)
        assert broker.llen(WEBHOOKS_QUEUE) == 0
    for callback in callbacks:
        callback()
    assert broker.llen(WEBHOOKS_QUEUE) == 2


def test_when_the_broker_is_down_the_sweep_sends_the_delivery_later(
    project: Project,
    receiver: Receiver,
    fast_retries: None,
    broker_down: None,
    django_capture_on_commit_callbacks: Any,
    request: pytest.FixtureRequest,
) -> None:
    make_endpoint(project, receiver.url)
    with django_capture_on_commit_callbacks(execute=True):
        event = emit(project)  # the event is stored; publishing its task fails
    delivery = WebhookDelivery.objects.get(event=event)
    assert delivery.enqueued_at is None and delivery.status == DeliveryStatus.PENDING
    request.getfixturevalue("eager")
    assert sweep() == 1
    assert receiver.webhook_ids() == [str(event.pk)]


def test_the_sweep_leaves_recently_published_and_not_yet_due_deliveries_alone(
    settings: Any, project: Project, eager: None
) -> None:
    settings.MEMHQ_WEBHOOKS_REQUEUE_AFTER_S = 60
    make_endpoint(project, "https://8.8.8.8/hook")
    emit(project)  # published on commit a moment ago
    assert sweep() == 0
    WebhookDelivery.objects.update(enqueued_at=None, next_attempt_at=None)
    WebhookDelivery.objects.update(status=DeliveryStatus.DELIVERED)
    assert sweep() == 0
