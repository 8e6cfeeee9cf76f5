"""One attempt at a time against a real HTTP receiver: what is sent, and what each answer leads to."""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta
from email.utils import format_datetime
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from memhq.models import DeliveryStatus, EpisodeErrorKind, Project, WebhookDelivery, WebhookEndpoint
from memhq.services.webhooks import event_emit
from memhq.tasks import deliver
from tests.webhooks.conftest import make_endpoint, reload
from tests.webhooks.receiver import Receiver, Reply

SUMMARY = {"episode_id": "e1", "user_id": "u1", "memory_ids": ["m1", "m2"]}


@pytest.fixture
def hook(project: Project, receiver: Receiver) -> tuple[WebhookEndpoint, str]:
    return make_endpoint(project, receiver.url)


def emit(project: Project) -> WebhookDelivery:
    event = event_emit(project_id=project.pk, user_id="u1", type="memories.changed", payload=SUMMARY)
    return WebhookDelivery.objects.get(event=event)


def attempt(delivery: WebhookDelivery) -> WebhookDelivery:
    WebhookDelivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.PENDING).update(
        next_attempt_at=timezone.now()  # due now, whatever the schedule said
    )
    deliver(str(delivery.pk))
    return reload(delivery)


def test_a_2xx_is_delivered_with_standard_webhooks_headers_and_the_envelope(
    project: Project, receiver: Receiver, hook: tuple[WebhookEndpoint, str]
) -> None:
    _, secret = hook
    delivery = attempt(emit(project))
    assert delivery.status == DeliveryStatus.DELIVERED
    assert delivery.attempts == 1 and delivery.last_status_code == 200 and delivery.delivered_at is not None
    [request] = receiver.requests
    assert request.headers["webhook-id"] == str(delivery.event_id)
    assert abs(int(request.headers["webhook-timestamp"]) - time.time()) < 60
    assert request.headers["content-type"] == "application/json"
    envelope = Webhook(secret).verify(request.body, request.headers)
    assert envelope["type"] == "memories.changed"
    assert envelope["data"] == SUMMARY
    assert envelope["timestamp"] == delivery.event.created_at.isoformat()


@pytest.mark.fault
@pytest.mark.parametrize("code", [500, 502, 503, 429])
def test_429_and_5xx_are_retried_with_the_same_webhook_id(
    fast_retries: None, project: Project, receiver: Receiver, hook: Any, code: int
) -> None:
    receiver.reply(Reply(status=code, body=b"try later"))
    delivery = attempt(emit(project))
    assert delivery.status == DeliveryStatus.PENDING
    assert delivery.last_status_code == code and delivery.last_error == f"HTTP {code}: try later"
    delivery = attempt(delivery)
    assert delivery.status == DeliveryStatus.DELIVERED and delivery.attempts == 2
    first, second = receiver.requests
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == str(delivery.event_id)
    assert first.body == second.body


def test_a_failed_attempt_waits_for_the_next_step_of_the_schedule(
    settings: Any, project: Project, receiver: Receiver, hook: Any
) -> None:
    settings.MEMHQ_WEBHOOKS_RETRY_JITTER = 0.0
    receiver.reply(Reply(status=500))
    before = timezone.now()
    delivery = attempt(emit(project))
    assert delivery.next_attempt_at is not None
    assert before + timedelta(seconds=5) <= delivery.next_attempt_at <= timezone.now() + timedelta(seconds=5)
    assert deliver(str(delivery.pk)) == "skipped"  # not due yet
    assert len(receiver.requests) == 1


@pytest.mark.fault
def test_retry_after_in_seconds_is_honoured(
    settings: Any, project: Project, receiver: Receiver, hook: Any
) -> None:
    settings.MEMHQ_WEBHOOKS_RETRY_JITTER = 0.0
    receiver.reply(Reply(status=429, headers={"Retry-After": "600"}))
    delivery = attempt(emit(project))
    assert delivery.status == DeliveryStatus.PENDING
    wait = (delivery.next_attempt_at - delivery.last_attempt_at).total_seconds()  # type: ignore[operator]
    assert 599 <= wait <= 602


@pytest.mark.fault
def test_retry_after_as_an_http_date_is_honoured_and_capped(
    settings: Any, project: Project, receiver: Receiver, hook: Any
) -> None:
    settings.MEMHQ_WEBHOOKS_RETRY_JITTER = 0.0
    settings.MEMHQ_WEBHOOKS_RETRY_AFTER_MAX_S = 3600
    in_two_days = format_datetime(timezone.now() + timedelta(days=2), usegmt=True)
    receiver.reply(Reply(status=503, headers={"Retry-After": in_two_days}))
    delivery = attempt(emit(project))
    wait = (delivery.next_attempt_at - timezone.now()).total_seconds()  # type: ignore[operator]
    assert 3590 <= wait <= 3600


@pytest.mark.parametrize("code", [301, 302, 307, 308])
def test_a_redirect_is_not_followed_and_fails_without_retry(
    fast_retries: None, project: Project, receiver: Receiver, hook: Any, code: int
) -> None:
    receiver.reply(Reply(status=code, headers={"Location": f"http://127.0.0.1:{receiver.port}/elsewhere"}))
    delivery = attempt(emit(project))
    assert delivery.status == DeliveryStatus.FAILED
    assert delivery.last_status_code == code and "redirects are not followed" in delivery.last_error
    assert delivery.next_attempt_at is None
    assert [request.path for request in receiver.requests] == ["/hook"]


@pytest.mark.parametrize("code", [400, 401, 403, 404, 422])
def test_other_4xx_fail_without_retry(
    fast_retries: None, project: Project, receiver: Receiver, hook: Any, code: int
) -> None:
    receiver.reply(Reply(status=code, body=b"no"))
    delivery = attempt(emit(project))
    assert delivery.status == DeliveryStatus.FAILED and delivery.last_error == f"HTTP {code}: no"
    assert attempt(delivery).attempts == 1  # nothing more is sent
    assert len(receiver.requests) == 1


def test_a_4xx_whose_body_never_arrives_still_fails_on_its_status(
    fast_retries: None, settings: Any, project: Project, receiver: Receiver, hook: Any
) -> None:
    settings.MEMHQ_WEBHOOKS_TIMEOUT_S = 0.3
    receiver.reply(Reply(status=404, body=b"late", body_delay_s=1.0))
    delivery = attempt(emit(project))
    assert delivery.status == DeliveryStatus.FAILED and delivery.last_status_code == 404
    assert delivery.last_error == "HTTP 404"


def test_410_fails_the_delivery_and_disables_the_endpoint(
    project: Project, receiver: Receiver, hook: tuple[WebhookEndpoint, str]
) -> None:
    endpoint, _ = hook
    first, second = emit(project), emit(project)
    receiver.reply(Reply(status=410))
    assert attempt(first).status == DeliveryStatus.FAILED
    endpoint.refresh_from_db()
    assert not endpoint.is_active and endpoint.disabled_at is not None
    assert "HTTP 410" in endpoint.disabled_reason
    second = attempt(second)  # already queued for the endpoint: not sent any more
    assert second.status == DeliveryStatus.FAILED and second.last_error == "endpoint is disabled"
    assert len(receiver.requests) == 1
    later = event_emit(project_id=project.pk, user_id="u1", type="memories.changed", payload=SUMMARY)
    assert not WebhookDelivery.objects.filter(event=later).exists()  # a disabled endpoint gets no new ones


@pytest.mark.fault
def test_a_timeout_is_retried(
    fast_retries: None, settings: Any, project: Project, receiver: Receiver, hook: Any
) -> None:
    settings.MEMHQ_WEBHOOKS_TIMEOUT_S = 0.3
    receiver.reply(Reply(delay_s=1.5))
    started = time.monotonic()
    delivery = attempt(emit(project))
    assert time.monotonic() - started < 1.4
    assert delivery.status == DeliveryStatus.PENDING and delivery.last_status_code is None
    assert delivery.last_error.startswith("timed out after 0.3 s")
    assert attempt(delivery).status == DeliveryStatus.DELIVERED


@pytest.mark.fault
def test_a_refused_connection_is_retried(
    fast_retries: None, project: Project, receiver: Receiver, hook: Any
) -> None:
    receiver.stop()
    delivery = attempt(emit(project))
    assert delivery.status == DeliveryStatus.PENDING
    assert delivery.last_error.startswith("connection error: ConnectError")


@pytest.mark.fault
def test_after_the_schedule_the_delivery_is_dead_and_a_replay_delivers_the_same_event(
    fast_retries: None, project: Project, receiver: Receiver, hook: Any
) -> None:
    from memhq.services.webhooks import delivery_replay

    receiver.default = Reply(status=500)
    delivery = emit(project)
    for _ in range(4):  # the first attempt and three retries
        delivery = attempt(delivery)
    assert delivery.status == DeliveryStatus.DEAD and delivery.attempts == 4
    assert delivery.next_attempt_at is None
    assert attempt(delivery).attempts == 4  # a dead delivery is not attempted again
    receiver.default = Reply(status=204)
    delivery = delivery_replay(delivery=delivery)
    assert delivery.status == DeliveryStatus.PENDING and delivery.attempts == 0 and delivery.replay_count == 1
    delivery = attempt(delivery)
    assert delivery.status == DeliveryStatus.DELIVERED and delivery.attempts == 1
    assert set(receiver.webhook_ids()) == {str(delivery.event_id)}
    assert len(receiver.requests) == 5


def test_two_copies_of_the_task_never_send_at_once(
    transactional_db: None, project: Project, receiver: Receiver, hook: Any
) -> None:
    delivery = emit(project)
    receiver.reply(Reply(delay_s=0.5))
    results: list[str] = []

    def run() -> None:
        try:
            results.append(deliver(str(delivery.pk)))
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["delivered", "skipped", "skipped"]
    assert len(receiver.requests) == 1


def test_a_result_recorded_after_the_lease_was_taken_over_is_discarded(
    project: Project, receiver: Receiver, hook: Any
) -> None:
    from memhq.webhooks.delivery import Outcome, Verdict
    from memhq.webhooks.state import delivery_claim, delivery_record

    delivery = emit(project)
    stale = delivery_claim(delivery.pk)
    assert stale is not None
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert deliver(str(delivery.pk)) == DeliveryStatus.DELIVERED  # another worker took it over
    assert delivery_record(stale, Outcome(Verdict.FAILED, error="late")) == "lost"
    assert reload(delivery).status == DeliveryStatus.DELIVERED


def test_a_worker_lost_on_the_last_attempt_makes_the_delivery_dead(
    fast_retries: None, project: Project, receiver: Receiver, hook: Any
) -> None:
    delivery = emit(project)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=DeliveryStatus.SENDING, attempts=4, lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert deliver(str(delivery.pk)) == DeliveryStatus.DEAD
    assert "interrupted" in reload(delivery).last_error
    assert receiver.requests == []


def test_an_unexpected_error_counts_as_an_attempt_and_is_retried(
    fast_retries: None, project: Project, receiver: Receiver, hook: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memhq.webhooks import delivery as http

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("bug")

    monkeypatch.setattr(http, "body_of", broken)
    delivery = attempt(emit(project))
    assert delivery.status == DeliveryStatus.PENDING and delivery.attempts == 1
    assert delivery.last_error == "internal error: RuntimeError: bug"


def test_an_unknown_or_malformed_delivery_id_is_skipped(db: None) -> None:
    assert deliver("00000000-0000-0000-0000-000000000000") == "skipped"
    assert deliver("not-a-uuid") == "skipped"


def test_the_body_is_the_summary_in_the_envelope_and_never_the_raw_episode(
    project: Project, receiver: Receiver, hook: tuple[WebhookEndpoint, str]
) -> None:
    from ingestion.runner import fail_episode
    from memhq.services.episodes import episode_create

    raw = json.dumps({"user_id": "u1", "messages": [{"role": "user", "content": "my secret diary"}]}).encode()
    episode = episode_create(project=project, user_id="u1", raw_body=raw).episode
    endpoint, secret = hook
    fail_episode(str(episode.pk), 3, "boom", kind=EpisodeErrorKind.PERMANENT)
    delivery = attempt(WebhookDelivery.objects.get(endpoint=endpoint, event__type="episode.failed"))
    assert delivery.status == DeliveryStatus.DELIVERED
    [request] = receiver.requests
    assert b"my secret diary" not in request.body
    data = Webhook(secret).verify(request.body, request.headers)["data"]
    assert data == {"episode_id": str(episode.pk), "user_id": "u1", "phase": "extract", "error": "boom"}
