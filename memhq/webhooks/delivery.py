"""One HTTP attempt: build the Standard Webhooks request, send it with httpx, classify the answer.

No database writes here (``state`` records the outcome). The sender connects to the addresses that
``address_policy`` resolved and checked, with the original ``Host`` header (and TLS server name), so DNS
cannot hand it a different, private address between the check and the connection. Redirects are not
followed, proxies from the environment are not used.
"""

from __future__ import annotations

import enum
import json
import time
from dataclasses import dataclass
from datetime import datetime

import httpx
from django.conf import settings

from memhq.models import WebhookEndpoint, WebhookEvent
from memhq.webhooks import signing
from memhq.webhooks.address_policy import AddressRefused, UnresolvableHost, addresses_for_send
from memhq.webhooks.schedule import parse_retry_after

USER_AGENT = "MemHQ-Webhooks/1.0"
ERROR_BODY_BYTES = 512  # of a non-2xx answer, kept in last_error
MAX_ADDRESSES_TRIED = 3  # a host with several addresses: try the next one when a connection is refused


class Verdict(enum.StrEnum):
    DELIVERED = "delivered"
    RETRY = "retry"
    FAILED = "failed"
    GONE = "gone"  # 410: the delivery fails and the endpoint is disabled


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    status_code: int | None = None
    error: str = ""
    retry_after_s: float | None = None


@dataclass(frozen=True)
class Answer:
    status_code: int
    retry_after: str | None
    body_start: str


def envelope(event: WebhookEvent) -> dict[str, object]:
    """``{"type", "timestamp", "data"}`` as Standard Webhooks suggests; data holds ids and a summary."""
    return {"type": event.type, "timestamp": event.created_at.isoformat(), "data": event.payload}


def body_of(event: WebhookEvent) -> bytes:
    """The same bytes on every attempt of an event (the signature differs only by its timestamp)."""
    return json.dumps(envelope(event), separators=(",", ":"), sort_keys=True).encode()


def active_secrets(endpoint: WebhookEndpoint, now: datetime) -> list[str]:
    secrets = [endpoint.secret]
    expires = endpoint.previous_secret_expires_at
    if endpoint.previous_secret and expires is not None and expires > now:
        secrets.append(endpoint.previous_secret)
    return secrets


def request_headers(
    endpoint: WebhookEndpoint, event: WebhookEvent, body: bytes, now: datetime
) -> dict[str, str]:
    signed = signing.headers(
        secrets_=active_secrets(endpoint, now),
        msg_id=str(event.pk),
        timestamp=int(now.timestamp()),
        body=body,
    )
    return {**signed, "content-type": "application/json", "user-agent": USER_AGENT}


def send(endpoint: WebhookEndpoint, event: WebhookEvent, *, now: datetime) -> Outcome:
    timeout_s = float(settings.MEMHQ_WEBHOOKS_TIMEOUT_S)
    try:
        host, _port, addresses = addresses_for_send(endpoint.url)
    except AddressRefused as exc:
        return Outcome(Verdict.FAILED, error=f"refused: {exc}")
    except UnresolvableHost as exc:
        return Outcome(Verdict.RETRY, error=str(exc))
    body = body_of(event)
    try:
        answer = post(
            endpoint.url,
            host,
            [str(address) for address in addresses],
            body,
            request_headers(endpoint, event, body, now),
            timeout_s,
        )
    except httpx.TimeoutException as exc:
        return Outcome(Verdict.RETRY, error=f"timed out after {timeout_s:g} s ({type(exc).__name__})")
    except httpx.TransportError as exc:
        return Outcome(Verdict.RETRY, error=f"connection error: {type(exc).__name__}: {exc}")
    return classify(answer, now=now)


def post(
    url: str, host: str, addresses: list[str], body: bytes, headers: dict[str, str], timeout_s: float
) -> Answer:
    target = httpx.URL(url)
    headers = {**headers, "host": target.netloc.decode("ascii")}
    extensions = {"sni_hostname": host} if target.scheme == "https" and host not in addresses else {}
    deadline = time.monotonic() + timeout_s
    last_error: httpx.TransportError | None = None
    with httpx.Client(timeout=timeout_s, follow_redirects=False, trust_env=False) as client:
        for address in addresses[:MAX_ADDRESSES_TRIED]:
            if last_error is not None and time.monotonic() > deadline:
                break
            request = client.build_request(
                "POST", target.copy_with(host=address), content=body, headers=headers, extensions=extensions
            )
            try:
                response = client.send(request, stream=True)
            except httpx.ConnectError as exc:
                last_error = exc
                continue
            try:
                return Answer(response.status_code, response.headers.get("retry-after"), _start_of(response))
            finally:
                response.close()
    raise last_error or httpx.ConnectError(f"no address of {host} to connect to")


def _start_of(response: httpx.Response) -> str:
    if response.is_success:
        return ""
    read = b""
    try:
        for chunk in response.iter_bytes():
            read += chunk
            if len(read) >= ERROR_BODY_BYTES:
                break
    except httpx.HTTPError:
        pass  # the status code is the answer; the body is only a hint for last_error
    return read[:ERROR_BODY_BYTES].decode(errors="replace").strip()


def classify(answer: Answer, *, now: datetime) -> Outcome:
    """2xx delivered; 429/5xx retried (honouring Retry-After); 410 gone; 3xx and other 4xx failed."""
    code = answer.status_code
    error = f"HTTP {code}: {answer.body_start}".strip().rstrip(":")
    if 200 <= code < 300:
        return Outcome(Verdict.DELIVERED, status_code=code)
    if code == 410:
        return Outcome(Verdict.GONE, status_code=code, error=error)
    if code == 429 or code >= 500:
        retry_after = parse_retry_after(answer.retry_after, now=now)
        return Outcome(Verdict.RETRY, status_code=code, error=error, retry_after_s=retry_after)
    if 300 <= code < 400:
        return Outcome(Verdict.FAILED, status_code=code, error=f"{error} (redirects are not followed)")
    return Outcome(Verdict.FAILED, status_code=code, error=error)
