"""Pings, the delivery list and replays through the API, against a real receiver."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from rest_framework.test import APIClient
from standardwebhooks.webhooks import Webhook

from memhq.models import DeliveryStatus, Project, WebhookDelivery, WebhookEndpoint
from memhq.services.webhooks import event_emit
from tests.webhooks.receiver import Receiver, Reply

WEBHOOKS = "/v1/memhq/webhooks"


@pytest.fixture
def created(api: APIClient, receiver: Receiver) -> dict[str, Any]:
    response = api.post(WEBHOOKS, {"url": receiver.url, "event_types": ["memories.changed"]}, format="json")
    assert response.status_code == 201
    data: dict[str, Any] = response.json()
    return data


def test_a_ping_reaches_only_that_endpoint_signed_with_its_secret(
    api: APIClient,
    project: Project,
    receiver: Receiver,
    created: dict[str, Any],
    eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    other = Receiver().start()
    try:
        api.post(WEBHOOKS, {"url": other.url, "event_types": ["memories.changed"]}, format="json")
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post(f"{WEBHOOKS}/{created['id']}/test")
        assert response.status_code == 202
        assert response.json()["event_type"] == "webhook.ping" and response.json()["status"] == "pending"
        [request] = receiver.requests
        envelope = Webhook(created["secret"]).verify(request.body, request.headers)
        assert envelope["type"] == "webhook.ping"
        assert envelope["data"]["endpoint_id"] == created["id"]
        assert other.requests == []
        delivery = WebhookDelivery.objects.get(pk=response.json()["id"])
        assert delivery.status == DeliveryStatus.DELIVERED
    finally:
        other.stop()


def test_pinging_a_disabled_endpoint_is_409(api: APIClient, created: dict[str, Any]) -> None:
    api.patch(f"{WEBHOOKS}/{created['id']}", {"active": False}, format="json")
    response = api.post(f"{WEBHOOKS}/{created['id']}/test")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conflict"
    assert not WebhookDelivery.objects.exists()


def emit(project: Project, count: int) -> None:
    for n in range(count):
        event_emit(project_id=project.pk, user_id="u1", type="memories.changed", payload={"n": n})


def test_the_delivery_list_shows_status_attempts_and_last_answer_newest_first(
    api: APIClient, project: Project, receiver: Receiver, created: dict[str, Any]
) -> None:
    from memhq.tasks import deliver

    emit(project, 5)
    receiver.reply(Reply(status=500, body=b"down"))
    oldest = WebhookDelivery.objects.order_by("created_at").first()
    assert oldest is not None
    deliver(str(oldest.pk))
    seen: list[dict[str, Any]] = []
    url: str | None = f"{WEBHOOKS}/{created['id']}/deliveries?page_size=2"
    while url:
        page = api.get(url).json()
        seen.extend(page["results"])
        url = page["next"]
    assert len(seen) == 5
    assert seen[-1]["id"] == str(oldest.pk)
    failed = seen[-1]
    assert failed["status"] == "pending" and failed["attempts"] == 1
    assert failed["last_status_code"] == 500 and failed["last_error"] == "HTTP 500: down"
    assert failed["next_attempt_at"] is not None and failed["event_type"] == "memories.changed"
    assert failed["event_id"] == str(oldest.event_id) and failed["endpoint_id"] == created["id"]
    only_pending = api.get(f"{WEBHOOKS}/{created['id']}/deliveries", {"status": "pending"}).json()["results"]
    assert len(only_pending) == 5
    assert api.get(f"{WEBHOOKS}/{created['id']}/deliveries", {"status": "dead"}).json()["results"] == []


def test_the_delivery_list_rejects_an_unknown_status_or_parameter(
    api: APIClient, created: dict[str, Any]
) -> None:
    response = api.get(f"{WEBHOOKS}/{created['id']}/deliveries", {"status": "lost"})
    assert response.status_code == 400 and "status" in response.json()["error"]["fields"]
    assert api.get(f"{WEBHOOKS}/{created['id']}/deliveries", {"colour": "red"}).status_code == 400


def test_replay_resends_the_same_event_with_a_fresh_attempt_sequence(
    api: APIClient,
    project: Project,
    receiver: Receiver,
    created: dict[str, Any],
    eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    emit(project, 1)
    delivery = WebhookDelivery.objects.get()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=DeliveryStatus.DEAD, attempts=10, next_attempt_at=None, last_error="HTTP 500"
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/v1/memhq/deliveries/{delivery.pk}/replay")
    assert response.status_code == 202
    assert response.json()["attempts"] == 0 and response.json()["replay_count"] == 1
    assert receiver.webhook_ids() == [str(delivery.event_id)]
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.DELIVERED and delivery.attempts == 1


@pytest.mark.parametrize("status", [DeliveryStatus.PENDING, DeliveryStatus.SENDING])
def test_replaying_a_delivery_still_in_progress_is_409(
    api: APIClient, project: Project, created: dict[str, Any], status: str
) -> None:
    emit(project, 1)
    delivery = WebhookDelivery.objects.get()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status=status)
    response = api.post(f"/v1/memhq/deliveries/{delivery.pk}/replay")
    assert response.status_code == 409
    assert WebhookDelivery.objects.get().replay_count == 0


def test_replaying_to_a_disabled_endpoint_is_409(
    api: APIClient, project: Project, created: dict[str, Any]
) -> None:
    emit(project, 1)
    WebhookDelivery.objects.update(status=DeliveryStatus.FAILED)
    WebhookEndpoint.objects.update(is_active=False)
    response = api.post(f"/v1/memhq/deliveries/{WebhookDelivery.objects.get().pk}/replay")
    assert response.status_code == 409
    assert WebhookDelivery.objects.get().status == DeliveryStatus.FAILED


def test_another_projects_delivery_is_404_exactly_like_an_unknown_id(
    other_api: APIClient, project: Project, created: dict[str, Any]
) -> None:
    emit(project, 1)
    delivery = WebhookDelivery.objects.get()
    WebhookDelivery.objects.update(status=DeliveryStatus.DEAD)
    foreign = other_api.post(f"/v1/memhq/deliveries/{delivery.pk}/replay")
    unknown = other_api.post(f"/v1/memhq/deliveries/{uuid.uuid4()}/replay")
    malformed = other_api.post("/v1/memhq/deliveries/nope/replay")
    assert foreign.status_code == unknown.status_code == malformed.status_code == 404
    assert foreign.json() == unknown.json() == malformed.json()
    assert WebhookDelivery.objects.get().status == DeliveryStatus.DEAD


def test_the_openapi_schema_lists_the_webhook_routes(db: None) -> None:
    from django.test import Client

    paths = Client().get("/v1/memhq/openapi.json").json()["paths"]
    for path in [
        "/v1/memhq/webhooks",
        "/v1/memhq/webhooks/{endpoint_id}",
        "/v1/memhq/webhooks/{endpoint_id}/rotate-secret",
        "/v1/memhq/webhooks/{endpoint_id}/test",
        "/v1/memhq/webhooks/{endpoint_id}/deliveries",
        "/v1/memhq/deliveries/{delivery_id}/replay",
    ]:
        assert path in paths
