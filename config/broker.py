"""kombu's Redis transport, with one fix: what needs the transport after its connection was lost is dropped.

When Redis goes away, the worker's consumer closes its connection, which puts every unacknowledged message
back in its queue ("Restoring N unacknowledged message(s)") and detaches the transport from its client
(``transport.client = None``). A task that was running then finishes and Celery acks its message on the old
channel; kombu 5.7's Redis QoS builds a new client from ``transport.client`` and raises ``AttributeError:
'NoneType' object has no attribute 'hostname'`` (``kombu/transport/redis.py: _connparams``). The error is
not one of the connection errors Celery's ``ack_log_error`` catches, so it escapes the event loop and the
worker stops with "Unrecoverable error" (seen under the fault suite's broker restarts, 1 run in ~10).

Dropping that ack is right for at-least-once delivery: the message was restored to its queue when the
connection closed, or, when Redis was already gone, it stays in kombu's unacked index and is restored after
the visibility timeout (a Redis that died without persistence lost it; the outbox sweep publishes the
episode again). Either way the next delivery finds the phase done (``ingestion/claims.py``). A reject is
dropped the same way.

The same detached transport ends the worker from the consumer's own cleanup. When Redis dies while the
consumer's channel waits in BRPOP and the remote-control channel holds its auto-delete fanout queue (as
Celery's always does), ``Connection.collect()`` detaches the transport without closing that channel: its
close raises reading the dead BRPOP, and the transport's close stops at the control channel's queue delete.
The ``close()`` Celery runs next closes the channel, whose restore of its unacknowledged messages builds a
client from ``transport.client``: the same AttributeError, "Unrecoverable error" (the fault suite's broker
restarts: CI of stop 28, 2 runs in 9 here). A restore that finds the transport detached is dropped: Redis is
gone, and with it the messages, which the outbox sweep publishes again; had it lived, they would wait in its
unacked index until the visibility timeout.

Selected in ``config/settings.py`` (``CELERY_BROKER_TRANSPORT``) for ``redis://`` brokers, and for
``sentinel://`` ones through kombu's Sentinel transport; tested in ``tests/faults/test_late_ack.py`` and
``tests/faults/test_broker_close.py``.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from kombu.transport import redis

logger = logging.getLogger(__name__)
SENTINEL_PORT = 26379


class QoS(redis.QoS):
    def _attached(self) -> bool:
        transport = self.channel.connection  # None once the channel is closed
        return transport is not None and transport.client is not None

    def _detached(self, delivery_tag: str, action: str) -> bool:
        if self._attached():
            return False
        logger.warning(
            "broker connection lost before the %s of %s: dropped, the message will be delivered again",
            action,
            delivery_tag,
        )
        self._delivered.pop(delivery_tag, None)
        return True

    def ack(self, delivery_tag: str) -> None:
        if not self._detached(delivery_tag, "ack"):
            super().ack(delivery_tag)

    def reject(self, delivery_tag: str, requeue: bool = False) -> None:
        if not self._detached(delivery_tag, "reject"):
            super().reject(delivery_tag, requeue=requeue)

    def restore_unacked(self, client: Any = None) -> None:
        if client is not None or self._attached():
            super().restore_unacked(client)
            return
        logger.warning(
            "broker connection lost before %d unacknowledged message(s) were restored: a broker that kept "
            "them delivers them again after the visibility timeout; the outbox sweep publishes a lost one",
            len(self._delivered),
        )
        self._delivered.clear()  # as a restore leaves it; restore_unacked_once asserts it


class Channel(redis.Channel):
    QoS = QoS


class Transport(redis.Transport):
    Channel = Channel


class SentinelChannel(redis.SentinelChannel):
    QoS = QoS


class SentinelTransport(redis.SentinelTransport):
    """The same fix for a broker behind Redis Sentinel (``sentinel://`` URLs; docs/deployment.md)."""

    Channel = SentinelChannel


def transport_for(url: str) -> str | None:
    """``CELERY_BROKER_TRANSPORT`` for ``url``: this module's transports for Redis, kombu's otherwise."""
    if url.startswith("redis://"):
        return "config.broker:Transport"
    if url.startswith("sentinel://"):
        return "config.broker:SentinelTransport"
    return None


def queue_client(url: str, master: str, timeout_s: float) -> Any:
    """A redis-py client on the broker's current master, for reading queue depths (/metrics)."""
    import redis as redis_py
    from redis.sentinel import Sentinel

    if not url.startswith("sentinel://"):
        return redis_py.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
    hosts = []
    for part in url.split(";"):
        location = urlsplit(part)
        hosts.append((location.hostname or "localhost", location.port or SENTINEL_PORT))
    sentinel = Sentinel(hosts, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
    return sentinel.master_for(master, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
