from __future__ import annotations

import ipaddress
import socket
from typing import Any

import pytest
from rest_framework.test import APIClient

from memhq.models import DeliveryStatus, Project, WebhookDelivery, WebhookEndpoint
from memhq.services.webhooks import event_emit
from memhq.tasks import deliver
from memhq.webhooks.address_policy import AddressRefused, check_url, is_public
from tests.webhooks.conftest import make_endpoint, reload
from tests.webhooks.receiver import Receiver

PUBLIC_NAME = "hooks.example.com"


@pytest.fixture
def private_refused(settings: Any) -> None:
    settings.MEMHQ_WEBHOOKS_ALLOW_PRIVATE = False


@pytest.fixture
def public_name_resolves_to_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """DNS (the network edge) answers 127.0.0.1 for a public-looking name, as a rebinding attacker would."""
    real = socket.getaddrinfo

    def fake(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == PUBLIC_NAME:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "::1",
        "fe80::1",
        "fc00::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254 (cloud metadata)
        "64:ff9b:1::a00:1",  # local-use NAT64 of 10.0.0.1
        "2002:7f00:1::",  # 6to4 of 127.0.0.1
        "::127.0.0.1",  # IPv4-compatible
        "fec0::1",  # site-local
    ],
)
def test_private_loopback_link_local_and_similar_addresses_are_not_public(address: str) -> None:
    assert not is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"]
)
def test_global_unicast_addresses_are_public(address: str) -> None:
    assert is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/hook",
        "http://localhost/hook",
        "https://10.0.0.5/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]:9000/",
        "http://[::ffff:127.0.0.1]/",
    ],
)
def test_check_url_refuses_non_public_hosts_when_private_is_not_allowed(
    private_refused: None, url: str
) -> None:
    with pytest.raises(AddressRefused):
        check_url(url)


def test_check_url_accepts_public_addresses_and_names_that_do_not_resolve_yet(private_refused: None) -> None:
    check_url("https://8.8.8.8/hook")
    check_url("https://not-yet-registered.invalid/hook")  # checked again at every send


def test_check_url_allows_loopback_when_the_setting_allows_private() -> None:
    check_url("http://127.0.0.1:8080/hook")
    check_url("http://localhost/hook")


def test_check_url_refuses_other_schemes_and_bad_ports() -> None:
    with pytest.raises(AddressRefused):
        check_url("ftp://8.8.8.8/")
    with pytest.raises(AddressRefused):
        check_url("http://8.8.8.8:99999/")


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8080/hook", "http://localhost:8080/hook", "http://169.254.169.254/"]
)
def test_creating_an_endpoint_on_a_private_address_is_400_and_writes_nothing(
    private_refused: None, api: APIClient, url: str
) -> None:
    response = api.post(
        "/v1/memhq/webhooks", {"url": url, "event_types": ["memories.changed"]}, format="json"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert "public addresses" in error["fields"]["url"][0]
    assert WebhookEndpoint.objects.count() == 0


def test_changing_an_endpoint_to_a_private_address_is_400_and_changes_nothing(
    private_refused: None, api: APIClient, project: Project
) -> None:
    endpoint, _ = make_endpoint(project, "https://8.8.8.8/hook")
    response = api.patch(
        f"/v1/memhq/webhooks/{endpoint.pk}", {"url": "http://10.0.0.1/", "active": False}, format="json"
    )
    assert response.status_code == 400
    assert "url" in response.json()["error"]["fields"]
    endpoint.refresh_from_db()
    assert endpoint.url == "https://8.8.8.8/hook" and endpoint.is_active


def test_a_send_to_a_private_address_is_refused_at_send_time(
    settings: Any, project: Project, receiver: Receiver
) -> None:
    endpoint, _ = make_endpoint(project, receiver.url)  # accepted while private addresses were allowed
    settings.MEMHQ_WEBHOOKS_ALLOW_PRIVATE = False
    event = event_emit(
        project_id=project.pk, user_id="u1", type="memories.changed", payload={"memory_ids": []}
    )
    delivery = WebhookDelivery.objects.get(event=event, endpoint=endpoint)
    assert deliver(str(delivery.pk)) == DeliveryStatus.FAILED
    delivery = reload(delivery)
    assert delivery.status == DeliveryStatus.FAILED
    assert delivery.last_error.startswith("refused:") and "127.0.0.1" in delivery.last_error
    assert delivery.next_attempt_at is None
    assert receiver.requests == []


def test_a_public_name_that_resolves_to_a_private_address_is_refused_at_send_time(
    private_refused: None, public_name_resolves_to_loopback: None, project: Project, receiver: Receiver
) -> None:
    endpoint = WebhookEndpoint.objects.create(
        project=project,
        url=f"http://{PUBLIC_NAME}:{receiver.port}/hook",  # passed the creation check when DNS was honest
        event_types=["memories.changed"],
        secret="whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0",
    )
    event_emit(project_id=project.pk, user_id="u1", type="memories.changed", payload={})
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert deliver(str(delivery.pk)) == DeliveryStatus.FAILED
    assert "resolves to a private" in reload(delivery).last_error
    assert receiver.requests == []


def test_the_sender_connects_to_the_checked_address_and_keeps_the_host_header(
    monkeypatch: pytest.MonkeyPatch, project: Project, receiver: Receiver
) -> None:
    endpoint, _ = make_endpoint(project, f"http://{PUBLIC_NAME}:{receiver.port}/hook")
    real = socket.getaddrinfo
    answers: list[str] = []

    def rebinding(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        """The first answer is the receiver; any later lookup gets an address where nothing listens, so a
        sender that resolved the name again after checking it would miss the receiver."""
        if host != PUBLIC_NAME:
            return real(host, port, *args, **kwargs)
        answers.append("127.0.0.1" if not answers else "127.0.0.2")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answers[-1], port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    event_emit(project_id=project.pk, user_id="u1", type="memories.changed", payload={})
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert deliver(str(delivery.pk)) == DeliveryStatus.DELIVERED
    assert answers == ["127.0.0.1"]  # resolved once, for the check; the connection used that answer
    assert receiver.requests[0].headers["host"] == f"{PUBLIC_NAME}:{receiver.port}"
    assert receiver.requests[0].path == "/hook"


def test_a_name_that_does_not_resolve_at_send_time_is_retried(project: Project) -> None:
    endpoint, _ = make_endpoint(project, "http://does-not-exist.invalid/hook")
    event_emit(project_id=project.pk, user_id="u1", type="memories.changed", payload={})
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert deliver(str(delivery.pk)) == DeliveryStatus.PENDING
    delivery = reload(delivery)
    assert "does not resolve" in delivery.last_error
    assert delivery.next_attempt_at is not None


def test_when_the_first_address_refuses_the_connection_the_next_one_is_tried(
    monkeypatch: pytest.MonkeyPatch, project: Project, receiver: Receiver
) -> None:
    real = socket.getaddrinfo

    def two_addresses(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == PUBLIC_NAME:  # nothing listens on 127.0.0.2; the receiver is on 127.0.0.1
            return [
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.2", port)),
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port)),
            ]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", two_addresses)
    endpoint, _ = make_endpoint(project, f"http://{PUBLIC_NAME}:{receiver.port}/hook")
    event_emit(project_id=project.pk, user_id="u1", type="memories.changed", payload={})
    assert deliver(str(WebhookDelivery.objects.get(endpoint=endpoint).pk)) == DeliveryStatus.DELIVERED
    assert len(receiver.requests) == 1
