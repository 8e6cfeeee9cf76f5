from __future__ import annotations

import base64
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from memhq.models import WebhookEndpoint
from memhq.webhooks import signing
from memhq.webhooks.delivery import active_secrets


def test_a_generated_secret_is_whsec_and_base64_of_at_least_24_random_bytes() -> None:
    secret = signing.secret_generate()
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"), validate=True)) >= 24
    assert signing.secret_generate() != secret


def test_a_signature_verifies_with_the_standardwebhooks_library() -> None:
    secret = signing.secret_generate()
    body = b'{"type":"memories.changed","timestamp":"2026-01-01T00:00:00+00:00","data":{"user_id":"u1"}}'
    headers = signing.headers(secrets_=[secret], msg_id="evt-1", timestamp=int(time.time()), body=body)
    assert headers["webhook-signature"].startswith("v1,")
    assert Webhook(secret).verify(body, headers) == {
        "type": "memories.changed",
        "timestamp": "2026-01-01T00:00:00+00:00",
        "data": {"user_id": "u1"},
    }


def test_a_tampered_body_id_or_timestamp_does_not_verify() -> None:
    secret = signing.secret_generate()
    body = b'{"data":{}}'
    now = int(time.time())
    headers = signing.headers(secrets_=[secret], msg_id="evt-1", timestamp=now, body=body)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(b'{"data":{"x":1}}', headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(body, {**headers, "webhook-id": "evt-2"})
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(body, {**headers, "webhook-timestamp": str(now - 1)})
    with pytest.raises(WebhookVerificationError):
        Webhook(signing.secret_generate()).verify(body, headers)


def test_two_secrets_give_two_space_separated_signatures_each_verifying_alone() -> None:
    old, new = signing.secret_generate(), signing.secret_generate()
    body = b"{}"
    headers = signing.headers(secrets_=[new, old], msg_id="evt-1", timestamp=int(time.time()), body=body)
    signatures = headers["webhook-signature"].split(" ")
    assert len(signatures) == 2 and all(part.startswith("v1,") for part in signatures)
    Webhook(new).verify(body, headers)
    Webhook(old).verify(body, headers)


@pytest.mark.parametrize("bad", ["", "secret", "whsec_", "whsec_not base64!"])
def test_a_malformed_secret_is_refused(bad: str) -> None:
    with pytest.raises(signing.InvalidSecret):
        signing.sign(secret=bad, msg_id="x", timestamp=0, body=b"")


def test_the_previous_secret_signs_only_until_it_expires() -> None:
    now = timezone.now()
    endpoint = WebhookEndpoint(secret="whsec_bmV3", previous_secret="whsec_b2xk")
    endpoint.previous_secret_expires_at = now + timedelta(hours=24)
    assert active_secrets(endpoint, now) == ["whsec_bmV3", "whsec_b2xk"]
    endpoint.previous_secret_expires_at = now - timedelta(seconds=1)
    assert active_secrets(endpoint, now) == ["whsec_bmV3"]
