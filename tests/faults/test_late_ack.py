"""A task that finishes after its broker connection was lost acks its message on a detached channel. kombu's
own Redis transport raises there: a connection error when the channel still holds its dead pool (Celery
logs it), AttributeError when the pool is gone too (Celery's event loop dies, and the worker with it: the
fault suite's broker restarts, 1 run in ~10). Ours (config/broker.py) drops the ack; the message, restored
when the connection closed, is delivered again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from kombu import Connection
from kombu.transport import redis as kombu_redis

from config import broker
from tests.support.redis_server import RedisServer, redis_server

QUEUE = "late-ack"


def delivered_then_connection_lost(server: RedisServer, transport: type, kill: bool) -> Any:
    with Connection(server.url, transport=transport) as producer:
        producer.SimpleQueue(QUEUE).put({"n": 1})
    consumer = Connection(server.url, transport=transport)
    message = consumer.SimpleQueue(QUEUE).get(timeout=5)  # delivered, not acknowledged
    if kill:
        server.kill()
    consumer.collect()  # what Celery's consumer does when the connection is lost
    return message


def as_in_the_ci_trace(message: Any) -> Any:
    """The worker's channel, as its traceback showed it: transport detached and no pool left."""
    message.channel._disconnect_pools()
    return message


def test_redis_brokers_use_our_transport() -> None:
    if settings.CELERY_BROKER_URL.startswith("redis://"):
        assert settings.CELERY_BROKER_TRANSPORT == "config.broker:Transport"


Errors = type[BaseException] | tuple[type[BaseException], ...]
LATE_ACK_ERRORS = [
    (lambda m: m, kombu_redis.Transport.connection_errors),
    (as_in_the_ci_trace, AttributeError),
]


@pytest.mark.parametrize(("prepare", "error"), LATE_ACK_ERRORS, ids=["dead pool", "no pool"])
def test_kombus_own_transport_raises_on_a_late_ack(
    tmp_path: Path, prepare: Callable[[Any], Any], error: Errors
) -> None:
    with redis_server(tmp_path / "redis") as server:
        message = prepare(delivered_then_connection_lost(server, kombu_redis.Transport, kill=True))
        with pytest.raises(error):
            message.ack()


@pytest.mark.parametrize("prepare", [lambda m: m, as_in_the_ci_trace], ids=["dead pool", "no pool"])
@pytest.mark.parametrize("settle", ["ack", "reject"])
def test_ours_drops_a_late_ack_or_reject_when_the_broker_died(
    tmp_path: Path, prepare: Callable[[Any], Any], settle: str
) -> None:
    with redis_server(tmp_path / "redis") as server:
        message = prepare(delivered_then_connection_lost(server, broker.Transport, kill=True))
        getattr(message, settle)()  # no exception: the worker's event loop goes on


@pytest.mark.parametrize("settle", ["ack", "reject"])
def test_after_a_dropped_ack_the_restored_message_comes_again_once(tmp_path: Path, settle: str) -> None:
    with redis_server(tmp_path / "redis") as server:
        message = delivered_then_connection_lost(server, broker.Transport, kill=False)
        getattr(message, settle)()
        with Connection(server.url, transport=broker.Transport) as again:
            queue = again.SimpleQueue(QUEUE)
            redelivered = queue.get(timeout=5)
            assert redelivered.payload == {"n": 1}
            redelivered.ack()
            with pytest.raises(queue.Empty):
                queue.get(timeout=0.5)
