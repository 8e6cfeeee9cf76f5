"""Logs: JSON lines on request, the episode id on every line of its chain, quiet beat sweeps."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest

from memhq.models import Project
from memhq.ops.logs import EpisodeContext, JsonFormatter, QuietSweeps
from tests.ingestion.helpers import make_episode, run_tasks


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.addFilter(EpisodeContext())

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def collected() -> Iterator[Collect]:
    handler = Collect()
    root = logging.getLogger()
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.INFO)
    yield handler
    root.removeHandler(handler)
    root.setLevel(level)


def test_every_line_of_an_episodes_chain_carries_its_id(project: Project, collected: Collect) -> None:
    episode = make_episode(project, [{"role": "user", "content": "I keep bees."}])
    logging.getLogger("before").info("not in a chain")
    run_tasks(episode)
    logging.getLogger("after").info("not in a chain either")
    chain = [r for r in collected.records if r.name not in ("before", "after")]
    assert any(r.name == "celery.app.trace" for r in chain)  # Celery's own "succeeded" lines too
    assert chain and all(r.episode_id == str(episode.pk) for r in chain)  # type: ignore[attr-defined]
    outside = [r for r in collected.records if r.name in ("before", "after")]
    assert [r.episode_id for r in outside] == [None, None]  # type: ignore[attr-defined]


def test_celerys_received_line_of_a_phase_task_names_its_episode() -> None:
    record = celery_line("ingestion.extract", None)
    record.data["args"] = "('0b4f7c1e-2a3d-4e5f-8a9b-0c1d2e3f4a5b',)"  # type: ignore[attr-defined]
    EpisodeContext().filter(record)
    assert record.episode_id == "0b4f7c1e-2a3d-4e5f-8a9b-0c1d2e3f4a5b"  # type: ignore[attr-defined]
    sweep = celery_line("ingestion.outbox_sweep", None)
    EpisodeContext().filter(sweep)
    assert sweep.episode_id is None  # type: ignore[attr-defined]


def test_json_lines_hold_the_message_level_and_episode_id() -> None:
    record = logging.LogRecord("memhq.x", logging.WARNING, __file__, 1, "phase %s slow", ("extract",), None)
    record.episode_id = "e-1"
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "phase extract slow" and line["level"] == "WARNING"
    assert line["episode_id"] == "e-1" and line["logger"] == "memhq.x" and line["time"].endswith("+00:00")


def celery_line(name: str, return_value: str | None) -> logging.LogRecord:
    data: dict[str, object] = {"name": name, "id": "t1"}
    if return_value is not None:
        data["return_value"] = return_value
    record = logging.LogRecord("celery.app.trace", logging.INFO, __file__, 1, "Task %(name)s", (), None)
    record.data = data
    return record


def test_a_sweep_that_did_nothing_logs_at_debug_and_real_work_at_info() -> None:
    quiet = QuietSweeps()
    logging.getLogger().setLevel(logging.INFO)
    idle = celery_line("ingestion.outbox_sweep", "0")
    assert quiet.filter(idle) is False and idle.levelname == "DEBUG"
    received = celery_line("webhooks.sweep", None)
    assert quiet.filter(received) is False
    busy = celery_line("ingestion.outbox_sweep", "3")
    assert quiet.filter(busy) is True and busy.levelname == "INFO"
    phase = celery_line("ingestion.extract", "None")
    assert quiet.filter(phase) is True and phase.levelname == "INFO"
    due = logging.LogRecord(
        "celery.beat",
        logging.INFO,
        __file__,
        1,
        "Scheduler: Sending due task %s (%s)",
        ("outbox-sweep", "ingestion.outbox_sweep"),
        None,
    )
    assert quiet.filter(due) is False
