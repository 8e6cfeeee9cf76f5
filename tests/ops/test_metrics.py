"""/metrics: Prometheus text for a scraper with the token; request latency per route, episodes by status,
phase durations, queue depth; every process's counters added up through the multiprocess directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families
from rest_framework.test import APIClient

from memhq.models import Project
from tests.ingestion.helpers import make_episode, run_tasks

TOKEN = "scrape-secret"
ROOT = django_settings.BASE_DIR


def scrape() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = Client().get("/metrics", headers={"authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


@pytest.fixture(autouse=True)
def _token(settings: Any) -> None:
    settings.MEMHQ_METRICS_TOKEN = TOKEN


def test_metrics_are_off_without_a_token_and_refused_with_a_wrong_one(db: None, settings: Any) -> None:
    assert Client().get("/metrics", headers={"authorization": "Bearer nope"}).status_code == 401
    assert Client().get("/metrics").status_code == 401
    settings.MEMHQ_METRICS_TOKEN = ""
    assert Client().get("/metrics", headers={"authorization": "Bearer "}).status_code == 404


def test_episodes_by_status_backlog_queue_depth_and_request_latency(project: Project, api: APIClient) -> None:
    make_episode(project, [{"role": "user", "content": "I cycle to work."}])
    before = scrape()
    route = (("method", "GET"), ("route", "/v1/memhq/episodes"), ("status", "200"))
    assert api.get("/v1/memhq/episodes").status_code == 200
    after = scrape()
    assert after[("memhq_episodes", (("status", "queued"),))] == 1
    assert after[("memhq_episodes", (("status", "failed"),))] == 0
    assert after[("memhq_outbox_backlog", (("state", "queued"),))] == 1
    assert ("memhq_queue_depth", (("queue", "celery"),)) in after
    count = ("memhq_http_request_duration_seconds_count", route)
    assert after[count] == before.get(count, 0) + 1


def test_phase_durations_are_observed_per_phase(project: Project) -> None:
    key = ("memhq_phase_duration_seconds_count", (("phase", "extract"),))
    before = scrape().get(key, 0)
    run_tasks(make_episode(project, [{"role": "user", "content": "I own a kayak."}]))
    assert scrape()[key] == before + 1


def test_counters_of_every_process_are_added_up(
    db: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker process counts LLM calls; the web process's /metrics shows them."""
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    code = (
        "import os; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings';"
        "from memhq.ops import metrics; metrics.observe_llm('extract', 100, 20)"
    )
    for _ in range(2):
        subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ), cwd=ROOT)
    samples = scrape()
    assert samples[("memhq_llm_calls_total", (("operation", "extract"),))] == 2
    assert samples[("memhq_llm_tokens_total", (("kind", "prompt"), ("operation", "extract")))] == 200
