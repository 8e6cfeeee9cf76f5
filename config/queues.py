"""Broker queues per kind of work, so that worker hosts can be specialised (docs/deployment.md).

| kind       | tasks                                                                   | bound by          |
|------------|-------------------------------------------------------------------------|-------------------|
| `cheap`    | ingestion.start, persist, anchor_dates, notify; threads.compact (local) | the database      |
| `embed`    | ingestion.extract (local), resolve_entities, reconcile, index           | CPU/GPU: models   |
| `llm`      | ingestion.extract, threads.compact, in LLM mode                          | the model server  |
| `webhooks` | webhooks.deliver                                                        | receivers' answer |
| `sweeps`   | the beat sweeps: outbox, webhooks, threads' inactivity, consolidation   | the database      |

A worker started without ``-Q`` consumes every queue but the LLM one in LLM mode (``CELERY_TASK_QUEUES``):
one host does everything, as before. A specialised host names its queues: ``celery -A config worker -Q embed
--concurrency 2``. A kind whose queue name is the cheap one's shares that queue.
"""

from __future__ import annotations

from kombu import Exchange, Queue

KINDS = ("cheap", "embed", "llm", "webhooks", "sweeps")

_TASKS = {
    "cheap": ("ingestion.start", "ingestion.persist", "ingestion.anchor_dates", "ingestion.notify"),
    "embed": ("ingestion.resolve_entities", "ingestion.reconcile", "ingestion.index"),
    "webhooks": ("webhooks.deliver",),
    "sweeps": (
        "ingestion.outbox_sweep",
        "webhooks.sweep",
        "threads.inactivity_sweep",
        "memhq.consolidation_sweep",
    ),
}
#: Tasks that wait for a model: on the LLM queue in LLM mode, else with the kind that runs them locally.
MODEL_TASKS = {"ingestion.extract": "embed", "threads.compact": "cheap"}


def routes(names: dict[str, str], *, llm_mode: bool) -> dict[str, dict[str, str]]:
    """``CELERY_TASK_ROUTES``: every task's queue, from ``names`` (kind → queue name)."""
    table = {task: {"queue": names[kind]} for kind, tasks in _TASKS.items() for task in tasks}
    for task, local_kind in MODEL_TASKS.items():
        table[task] = {"queue": names["llm" if llm_mode else local_kind]}
    return table


def consumed(names: dict[str, str], *, llm_mode: bool) -> list[Queue]:
    """``CELERY_TASK_QUEUES``: what a worker without ``-Q`` consumes (all but a separate LLM queue)."""
    kept = [name for kind, name in names.items() if not (llm_mode and kind == "llm")]
    return [Queue(name, Exchange(name), routing_key=name) for name in dict.fromkeys(kept)]
