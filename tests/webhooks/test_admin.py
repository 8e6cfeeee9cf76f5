"""The admin lists endpoints, events and deliveries, and replays deliveries."""

from __future__ import annotations

from typing import Any

from django.test import Client

from memhq.models import DeliveryStatus, Project, WebhookDelivery, WebhookEndpoint
from memhq.services.webhooks import event_emit
from tests.webhooks.conftest import make_endpoint


def setup_delivery(project: Project) -> WebhookDelivery:
    make_endpoint(project, "https://8.8.8.8/hook")
    event_emit(project_id=project.pk, user_id="u1", type="memories.changed", payload={"memory_ids": []})
    return WebhookDelivery.objects.get()


def test_admin_pages_list_and_show_endpoints_events_and_deliveries(
    admin_client: Client, project: Project
) -> None:
    delivery = setup_delivery(project)
    pages = [
        "/admin/memhq/webhookendpoint/",
        f"/admin/memhq/webhookendpoint/{delivery.endpoint_id}/change/",
        "/admin/memhq/webhookevent/",
        f"/admin/memhq/webhookevent/{delivery.event_id}/change/",
        "/admin/memhq/webhookdelivery/",
        f"/admin/memhq/webhookdelivery/{delivery.pk}/change/",
    ]
    for page in pages:
        response = admin_client.get(page)
        assert response.status_code == 200, page
    endpoint_page = admin_client.get(pages[1]).content.decode()
    assert WebhookEndpoint.objects.get().secret not in endpoint_page


def test_the_replay_action_starts_a_fresh_sequence_and_skips_deliveries_in_progress(
    admin_client: Client, project: Project, django_capture_on_commit_callbacks: Any
) -> None:
    dead = setup_delivery(project)
    WebhookDelivery.objects.filter(pk=dead.pk).update(status=DeliveryStatus.DEAD, attempts=10)
    event_emit(project_id=project.pk, user_id="u1", type="memories.changed", payload={})
    pending = WebhookDelivery.objects.exclude(pk=dead.pk).get()
    response = admin_client.post(
        "/admin/memhq/webhookdelivery/",
        {"action": "replay", "_selected_action": [str(dead.pk), str(pending.pk)]},
        follow=True,
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "Replayed 1 deliveries." in body and "still being attempted" in body
    dead.refresh_from_db()
    assert dead.status == DeliveryStatus.PENDING and dead.attempts == 0 and dead.replay_count == 1


def test_deactivating_an_endpoint_in_the_admin_goes_through_the_service(
    admin_client: Client, project: Project
) -> None:
    endpoint, _ = make_endpoint(project, "https://8.8.8.8/hook")
    response = admin_client.post(
        f"/admin/memhq/webhookendpoint/{endpoint.pk}/change/", {"description": "paused", "is_active": ""}
    )
    assert response.status_code == 302
    endpoint.refresh_from_db()
    assert not endpoint.is_active and endpoint.disabled_at is not None and endpoint.description == "paused"


def test_the_rotate_action_shows_the_new_secret_once(admin_client: Client, project: Project) -> None:
    endpoint, old = make_endpoint(project, "https://8.8.8.8/hook")
    response = admin_client.post(
        "/admin/memhq/webhookendpoint/",
        {"action": "rotate_secret", "_selected_action": [str(endpoint.pk)]},
        follow=True,
    )
    endpoint.refresh_from_db()
    assert endpoint.secret != old and endpoint.previous_secret == old
    assert endpoint.secret in response.content.decode()
