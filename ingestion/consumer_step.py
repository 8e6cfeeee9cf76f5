"""The shape of MemHQ's consumer bootsteps: a timer in the consumer's event loop that runs while the consumer
consumes (started after it subscribed, stopped when its connection is lost or the worker shuts down)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import bootsteps


class RepeatingConsumerStep(bootsteps.StartStopStep):
    requires = ("celery.worker.consumer.tasks:Tasks",)

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        self.tref: Any = None
        super().__init__(parent, **kwargs)

    def repeat(self, c: Any, every_s: float, call: Callable[..., None], *args: Any) -> None:
        self.tref = c.timer.call_repeatedly(every_s, call, (c, *args), priority=10)

    def stop(self, c: Any) -> None:
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None

    def shutdown(self, c: Any) -> None:
        self.stop(c)
