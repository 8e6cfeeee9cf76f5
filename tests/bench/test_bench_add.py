"""``manage.py memhq_bench add`` end to end: a smoke test of the command, not a timed test."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import redis
from django.core.management import call_command
from django.urls import Resolver404, resolve
from django.utils import timezone

from memhq.models import Episode, Project
from tooling.bench.baseline import BASELINE_ROUTE

SUMMARY_FIELDS = {"mode", "requests", "errors", "rps", "p50_ms", "p95_ms", "p99_ms", "max_ms", "cpu_ms"}
SMOKE = ["--clients", "2", "--seconds", "2", "--warmup", "0.5", "--workers", "1"]


@pytest.mark.django_db(transaction=True)
def test_bench_add_reports_both_servers_without_errors_and_leaves_nothing_behind(
    tmp_path: Path, broker: redis.Redis
) -> None:
    out, stdout = tmp_path / "add.json", io.StringIO()
    call_command("memhq_bench", "add", *SMOKE, "--rate", "20", "--json", str(out), stdout=stdout)
    report = json.loads(out.read_text())
    for server in ("memhq", "baseline"):
        for mode in ("closed", "open"):
            figures = report["runs"][server][mode]
            assert set(figures) >= SUMMARY_FIELDS, (server, mode)
            assert figures["errors"] == 0, (server, mode, figures["error_kinds"])
            assert figures["requests"] > 0 and figures["rps"] > 0
            assert 0 < figures["p50_ms"] <= figures["p95_ms"] <= figures["p99_ms"] <= figures["max_ms"]
            if mode == "closed":  # psutil counts CPU in 10 ms ticks: the open run may be too light to show
                assert figures["cpu_ms"]["web (gunicorn)"] > 0
    assert report["ratios"]["closed"]["p50"] > 0 and report["ratios"]["closed"]["rps"] > 0
    text = stdout.getvalue()
    assert "memhq [closed]" in text and "baseline [closed]" in text and "MemHQ vs baseline [closed]" in text
    # /add only commits (the outbox relay publishes, and the bench runs none): nothing reached the broker;
    # the cleanup removed the rows and the bench project.
    cleanup = report["cleanup"]
    assert cleanup["project_deleted"] and cleanup["episodes_deleted"] > 0
    assert cleanup["messages_removed"] == 0
    assert not Episode.objects.exists()
    assert not Project.objects.exists()
    assert broker.llen("celery") == 0


@pytest.mark.django_db(transaction=True)
def test_bench_add_with_a_given_key_keeps_the_project_and_removes_only_bench_episodes(
    tmp_path: Path, broker: redis.Redis, project: Project
) -> None:
    Episode.objects.create(
        project=project,
        user_id="real-user",
        raw_body=b"{}",
        content_hash="x",
        received_at=timezone.now(),
    )
    key = project.test_key  # type: ignore[attr-defined]
    call_command("memhq_bench", "add", *SMOKE, "--no-baseline", "--key", key, stdout=io.StringIO())
    assert Project.objects.filter(pk=project.pk).exists()
    assert list(Episode.objects.values_list("user_id", flat=True)) == ["real-user"]
    assert broker.llen("celery") == 0


def test_the_baseline_route_is_not_served_normally() -> None:
    with pytest.raises(Resolver404):
        resolve(f"/{BASELINE_ROUTE}")
