"""/v1/memhq/webhooks: create, read, change, delete, rotate the secret; validation and tenancy."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient
from standardwebhooks.webhooks import Webhook

from memhq.models import Project, WebhookEndpoint
from memhq.webhooks.delivery import active_secrets
from memhq.webhooks.signing import headers as signed_headers

WEBHOOKS = "/v1/memhq/webhooks"
BODY = {"url": "https://8.8.8.8/hook", "event_types": ["memories.changed", "episode.completed"]}


def create(api: APIClient, **overrides: Any) -> dict[str, Any]:
    response = api.post(WEBHOOKS, {**BODY, **overrides}, format="json")
    assert response.status_code == 201, response.json()
    data: dict[str, Any] = response.json()
    return data


def test_create_shows_the_secret_once(api: APIClient) -> None:
    created = create(api, description="CRM sync")
    assert created["secret"].startswith("whsec_")
    assert created["url"] == BODY["url"] and created["event_types"] == BODY["event_types"]
    assert created["active"] is True and created["description"] == "CRM sync"
    shown = api.get(f"{WEBHOOKS}/{created['id']}").json()
    assert "secret" not in shown
    listed = api.get(WEBHOOKS).json()["results"]
    assert [item["id"] for item in listed] == [created["id"]] and "secret" not in listed[0]
    assert WebhookEndpoint.objects.get(pk=created["id"]).secret == created["secret"]


def test_duplicate_event_types_are_stored_once(api: APIClient) -> None:
    created = create(api, event_types=["episode.failed", "episode.failed"])
    assert created["event_types"] == ["episode.failed"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"event_types": ["memories.changed"]}, "url"),
        ({"url": "not a url", "event_types": ["memories.changed"]}, "url"),
        ({"url": "ftp://8.8.8.8/x", "event_types": ["memories.changed"]}, "url"),
        ({"url": "https://8.8.8.8/" + "x" * 2000, "event_types": ["memories.changed"]}, "url"),
        ({"url": "https://8.8.8.8/"}, "event_types"),
        ({"url": "https://8.8.8.8/", "event_types": []}, "event_types"),
        ({"url": "https://8.8.8.8/", "event_types": ["memories.exploded"]}, "event_types"),
        ({"url": "https://8.8.8.8/", "event_types": ["webhook.ping"]}, "event_types"),
        ({"url": "https://8.8.8.8/", "event_types": "memories.changed"}, "event_types"),
        ({**BODY, "active": "maybe"}, "active"),
        ({**BODY, "description": "x" * 501}, "description"),
        ({**BODY, "secret": "whsec_mine"}, "secret"),
    ],
)
def test_bad_input_is_400_in_the_error_shape_and_writes_nothing(
    api: APIClient, body: dict[str, Any], field: str
) -> None:
    response = api.post(WEBHOOKS, body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and isinstance(error["message"], str)
    assert field in error["fields"]
    assert not WebhookEndpoint.objects.exists()


def test_a_body_that_is_not_json_is_415(api: APIClient) -> None:
    response = api.post(WEBHOOKS, "url=x", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"


def test_the_number_of_endpoints_per_project_is_limited(settings: Any, api: APIClient) -> None:
    settings.MEMHQ_WEBHOOKS_MAX_ENDPOINTS = 2
    create(api)
    create(api)
    response = api.post(WEBHOOKS, BODY, format="json")
    assert response.status_code == 400
    assert "at most 2" in response.json()["error"]["fields"]["non_field_errors"][0]
    assert WebhookEndpoint.objects.count() == 2


def test_patch_changes_url_types_description_and_active(api: APIClient) -> None:
    created = create(api)
    response = api.patch(
        f"{WEBHOOKS}/{created['id']}",
        {
            "url": "https://1.1.1.1/new",
            "event_types": ["episode.failed"],
            "description": "d",
            "active": False,
        },
        format="json",
    )
    assert response.status_code == 200
    data = response.json()
    assert data["url"] == "https://1.1.1.1/new" and data["event_types"] == ["episode.failed"]
    assert data["description"] == "d" and data["active"] is False and data["disabled_at"] is not None
    reactivated = api.patch(f"{WEBHOOKS}/{created['id']}", {"active": True}, format="json").json()
    assert reactivated["active"] is True and reactivated["disabled_at"] is None
    assert reactivated["disabled_reason"] == ""


@pytest.mark.parametrize(
    "body",
    [{"event_types": []}, {"event_types": ["nope"]}, {"url": "nope"}, {"colour": "red"}, {"active": None}],
)
def test_a_bad_patch_is_400_and_changes_nothing(api: APIClient, body: dict[str, Any]) -> None:
    created = create(api)
    response = api.patch(f"{WEBHOOKS}/{created['id']}", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    endpoint = WebhookEndpoint.objects.get(pk=created["id"])
    assert endpoint.url == BODY["url"] and endpoint.event_types == BODY["event_types"] and endpoint.is_active


def test_delete_removes_the_endpoint(api: APIClient) -> None:
    created = create(api)
    assert api.delete(f"{WEBHOOKS}/{created['id']}").status_code == 204
    assert api.get(f"{WEBHOOKS}/{created['id']}").status_code == 404
    assert not WebhookEndpoint.objects.exists()


def test_rotate_shows_the_new_secret_once_and_both_sign_for_24_hours(api: APIClient) -> None:
    created = create(api)
    before = timezone.now()
    response = api.post(f"{WEBHOOKS}/{created['id']}/rotate-secret")
    assert response.status_code == 200
    rotated = response.json()
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != created["secret"]
    assert "secret" not in api.get(f"{WEBHOOKS}/{created['id']}").json()
    endpoint = WebhookEndpoint.objects.get(pk=created["id"])
    expires = endpoint.previous_secret_expires_at
    assert expires is not None and 86390 <= (expires - before).total_seconds() <= 86410
    now = timezone.now()
    secrets = active_secrets(endpoint, now)
    assert secrets == [rotated["secret"], created["secret"]]
    headers = signed_headers(secrets_=secrets, msg_id="evt", timestamp=int(time.time()), body=b"{}")
    Webhook(created["secret"]).verify(b"{}", headers)  # receivers that still hold the old secret
    Webhook(rotated["secret"]).verify(b"{}", headers)  # and those already updated


ROUTES = [
    ("get", "{id}"),
    ("patch", "{id}"),
    ("delete", "{id}"),
    ("post", "{id}/rotate-secret"),
    ("post", "{id}/test"),
    ("get", "{id}/deliveries"),
]


@pytest.mark.parametrize(("method", "route"), ROUTES)
def test_another_projects_endpoint_is_404_exactly_like_an_unknown_id(
    api: APIClient, other_api: APIClient, method: str, route: str
) -> None:
    created = create(api)
    foreign = getattr(other_api, method)(f"{WEBHOOKS}/{route.format(id=created['id'])}", {}, format="json")
    unknown = getattr(other_api, method)(f"{WEBHOOKS}/{route.format(id=uuid.uuid4())}", {}, format="json")
    malformed = getattr(other_api, method)(f"{WEBHOOKS}/{route.format(id='not-a-uuid')}", {}, format="json")
    assert foreign.status_code == unknown.status_code == malformed.status_code == 404
    assert foreign.json() == unknown.json() == malformed.json()
    assert foreign.json()["error"]["code"] == "not_found"
    endpoint = WebhookEndpoint.objects.get(pk=created["id"])
    assert endpoint.secret == created["secret"] and endpoint.is_active


def test_lists_show_only_the_projects_own_endpoints(
    api: APIClient, other_api: APIClient, project: Project
) -> None:
    mine = {create(api)["id"] for _ in range(3)}
    create(other_api)
    seen: list[str] = []
    url: str | None = f"{WEBHOOKS}?page_size=2"
    while url:
        page = api.get(url).json()
        seen.extend(item["id"] for item in page["results"])
        url = page["next"]
    assert set(seen) == mine and len(seen) == 3


def test_webhook_routes_need_an_api_key(db: None) -> None:
    response = APIClient().get(WEBHOOKS)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthenticated"
