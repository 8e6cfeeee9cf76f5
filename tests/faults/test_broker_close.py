"""The consumer's connection is lost while its channel waits in BRPOP and a control channel holds an
auto-delete fanout queue (Celery's remote control always does). Celery cleans up with ``collect()`` then
``close()``; with kombu's own Redis transport the close raises AttributeError, which ends the worker
("Unrecoverable error", the fault suite's broker restarts). Ours (config/broker.py) drops a restore that
comes after the transport was detached, and restores as kombu does while it is attached."""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path
from typing import Any

import pytest
from kombu import Connection, Exchange, Queue
from kombu.transport import redis as kombu_redis

from config import broker
from tests.support.redis_server import RedisServer, redis_server

QUEUE = "close-test"


def consumer_mid_poll(server: RedisServer, transport: type) -> tuple[Connection, Any]:
    """A connection as a worker's consumer holds it: one message delivered and not acknowledged, the channel
    waiting in BRPOP for the next, and a control channel with an auto-delete queue on a fanout exchange."""
    with Connection(server.url, transport=transport) as producer:
        producer.SimpleQueue(QUEUE).put({"n": 1})
    consumer = Connection(server.url, transport=transport)
    message = consumer.SimpleQueue(QUEUE).get(timeout=5)
    control = consumer.channel()
    Queue("control", Exchange("control.fanout", type="fanout"), auto_delete=True)(control).declare()
    message.channel._brpop_start()
    return consumer, message


def kill_redis(server: RedisServer) -> None:
    server.kill()


def drop_connections(server: RedisServer) -> None:
    """Redis stays up; every connection but this one is cut (a network fault, a failover proxy)."""
    server.client().client_kill_filter(_type="normal", skipme=True)


def cleanup_as_celery_does(consumer: Connection) -> None:
    """celery.worker.consumer.Consumer.on_connection_error_after_connected."""
    with contextlib.suppress(Exception):  # Celery ignores whatever collect raises
        consumer.collect()
    consumer.close()


def test_kombus_own_transport_raises_in_the_close_after_collect(tmp_path: Path) -> None:
    with redis_server(tmp_path / "redis") as server:
        consumer, _ = consumer_mid_poll(server, kombu_redis.Transport)
        kill_redis(server)
        with pytest.raises(AttributeError):
            cleanup_as_celery_does(consumer)


def test_ours_closes_when_redis_was_killed(tmp_path: Path) -> None:
    with redis_server(tmp_path / "redis") as server:
        consumer, message = consumer_mid_poll(server, broker.Transport)
        kill_redis(server)
        cleanup_as_celery_does(consumer)  # no exception: the worker's consumer reconnects
        assert message.channel.closed


def test_ours_still_restores_at_once_when_only_the_connection_was_lost(tmp_path: Path) -> None:
    with redis_server(tmp_path / "redis") as server:
        consumer, _ = consumer_mid_poll(server, broker.Transport)
        drop_connections(server)
        cleanup_as_celery_does(consumer)
        with Connection(server.url, transport=broker.Transport) as again:
            queue = again.SimpleQueue(QUEUE)
            redelivered = queue.get(timeout=5)  # restored by the close, not an hour later
            assert redelivered.payload == {"n": 1}
            redelivered.ack()


def test_a_restore_after_the_transport_was_detached_is_dropped_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with redis_server(tmp_path / "redis") as server:
        consumer = Connection(server.url, transport=broker.Transport)
        with Connection(server.url, transport=broker.Transport) as producer:
            producer.SimpleQueue(QUEUE).put({"n": 1})
        message = consumer.SimpleQueue(QUEUE).get(timeout=5)
        consumer._do_close_transport()  # what collect() leaves when the channel's close failed
        with caplog.at_level(logging.WARNING, logger="config.broker"):
            message.channel.close()
        assert "1 unacknowledged message(s) were restored" in caplog.text
        assert message.channel.closed
