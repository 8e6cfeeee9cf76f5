"""A worker whose consumer stopped taking messages while they wait for it reconnects.

After a broker restart, kombu's Redis transport has more than once lost its place: the consumer stays
"connected" but no longer asks Redis for messages, so they wait in the queue while the worker sits idle
(celery#8030 and #8091, kombu#2629; seen here once in ~20 runs of ``tests/faults/test_broker_restarts.py``,
the outbox sweep's re-publications waiting with the rest). Nothing in the worker notices.

This consumer bootstep looks every quarter of ``MEMHQ_CONSUMER_STALL_S``, from the consumer's event loop:
when the worker holds no task, a queue it consumes has messages, and none arrived for that long, it raises a
connection error in the loop. That is Celery's own recovery for a lost connection: the consumer closes the
connection (unacknowledged messages go back to their queue), connects again and subscribes again. A worker
that is busy, or whose queues are empty, is never judged: a healthy idle worker takes a waiting message
within milliseconds, so the condition holding for the whole period means the consumer is stuck. "Holds no
task" is Celery's reserved requests: a retry waiting for its countdown is not one, and does not stop the
consumer from taking more (its prefetch limit is raised for it), as long as ``worker_eta_task_limit`` and
``worker_disable_prefetch`` stay unset. Only under the prefork/solo event loop (the Procfile's workers).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from celery import signals
from celery.worker import state
from django.conf import settings
from kombu.exceptions import ChannelError

from ingestion.consumer_step import RepeatingConsumerStep

logger = logging.getLogger(__name__)


class ConsumerStalled(ConnectionError):
    """Raised in the consumer's loop; a connection error, so Celery reconnects the consumer."""


def waiting_messages(consumer: Any) -> int:
    """Messages waiting in the queues this worker consumes (the broker's count, priorities included)."""
    channel = consumer.connection.default_channel
    total = 0
    for queue in consumer.task_consumer.queues:
        try:
            total += channel.queue_declare(queue.name, passive=True).message_count
        except ChannelError:  # Redis keeps no key for an empty queue
            continue
    return total


class ConsumerWatchdog(RepeatingConsumerStep):
    """Reconnects the consumer when it stopped taking the messages waiting for it."""

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        self.consumer = parent
        self.quiet_since = time.monotonic()
        signals.task_received.connect(self.received, weak=False, dispatch_uid=f"consumer-watchdog-{id(self)}")
        super().__init__(parent, **kwargs)

    def received(self, sender: Any = None, **kwargs: Any) -> None:
        if sender is self.consumer:
            self.quiet_since = time.monotonic()

    def start(self, c: Any) -> None:
        stall_s = float(settings.MEMHQ_CONSUMER_STALL_S)
        if stall_s <= 0 or c.hub is None:  # no event loop (gevent/eventlet): a raise would only be logged
            return
        self.quiet_since = time.monotonic()  # a fresh connection gets the whole period
        self.repeat(c, max(stall_s / 4, 0.5), self.check, stall_s)

    def check(self, c: Any, stall_s: float) -> None:
        now = time.monotonic()
        if state.reserved_requests:  # busy (or prefetched up to its limit): not receiving is expected
            self.quiet_since = now
            return
        if now - self.quiet_since < stall_s:
            return
        waiting = waiting_messages(c)  # a broken connection raises here, and the consumer reconnects
        if not waiting:
            return
        logger.error(
            "consumer stalled: %d message(s) waiting, this worker idle and nothing received for %.0f s; "
            "reconnecting",
            waiting,
            now - self.quiet_since,
        )
        self.quiet_since = now
        raise ConsumerStalled(f"no message received for {stall_s:.0f} s while {waiting} wait")
