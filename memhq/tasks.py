"""Celery tasks of the memhq app: thin adapters from a delivery id to ``memhq.webhooks``."""

from __future__ import annotations

from celery import Task

from config.celery import app
from memhq.webhooks import dispatch, state


class DeliveryTask(Task):
    acks_late = True
    reject_on_worker_lost = True
    ignore_result = True


@app.task(base=DeliveryTask, name=dispatch.DELIVER_TASK)
def deliver(delivery_id: str) -> str:
    """One attempt of one delivery; idempotent (the row is claimed with a compare-and-swap)."""
    return state.deliver(delivery_id)


@app.task(name="webhooks.sweep", ignore_result=True)
def sweep() -> int:
    return dispatch.sweep()
