"""``python -m tests.support.slow_worker worker ...``: a real Celery worker whose phases take longer, so a
fault test can kill it mid-phase. ``MEMHQ_TEST_PHASE_DELAY="3=2.0,5=1.5"`` sleeps that many seconds at the
start of those phases' ``compute`` (outside any transaction, where a real model call spends its time).
``MEMHQ_TEST_WEDGE_AFTER=N`` wedges the consumer once it has received N tasks, as kombu's Redis transport
sometimes is after a broker restart: connected, but never asking for another message.

Test tooling only: the product has no fault hooks; this patches the phase modules before the pool forks.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any


def parse_delays(text: str) -> dict[int, float]:
    delays: dict[int, float] = {}
    for part in filter(None, (item.strip() for item in text.split(","))):
        phase, _, seconds = part.partition("=")
        delays[int(phase)] = float(seconds)
    return delays


def slow_down(delays: dict[int, float]) -> None:
    from ingestion.phases import MODULES
    from memhq.models import EpisodePhase

    for phase, delay in delays.items():
        module: Any = MODULES[EpisodePhase(phase)]
        original = module.compute

        def compute(episode: Any, _original: Any = original, _delay: float = delay) -> Any:
            time.sleep(_delay)
            return _original(episode)

        module.compute = compute


def wedge_after(count: int) -> None:
    """From the ``count``-th task received on, this connection's channel never has room for another
    message, so it stops asking Redis; a new connection (a new channel) is not wedged."""
    from celery import signals

    received = 0

    def on_received(sender: Any, **kwargs: Any) -> None:
        nonlocal received
        received += 1
        if received == count:
            sender.task_consumer.channel.qos.can_consume = lambda: False

    signals.task_received.connect(on_received, weak=False)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    slow_down(parse_delays(os.environ.get("MEMHQ_TEST_PHASE_DELAY", "")))
    if os.environ.get("MEMHQ_TEST_WEDGE_AFTER"):
        wedge_after(int(os.environ["MEMHQ_TEST_WEDGE_AFTER"]))
    from config.celery import app

    app.worker_main(argv=sys.argv[1:])


if __name__ == "__main__":
    main()
