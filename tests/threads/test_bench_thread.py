"""``manage.py memhq_bench thread`` end to end: a smoke test of the command, not a timed test."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import redis
from django.core.management import call_command

from memhq.models import Memory, Project, Thread, ThreadMessage

SMOKE = ["--clients", "2", "--seconds", "1", "--warmup", "0.3", "--workers", "1", "--recall-iterations", "3"]
SMOKE += ["--rate", "20"]
FIELDS = {"requests", "errors", "rps", "p50_ms", "p99_ms", "cpu_ms"}


@pytest.mark.django_db(transaction=True)
def test_bench_thread_measures_both_endpoints_without_errors_and_leaves_nothing_behind(
    tmp_path: Path, broker: redis.Redis
) -> None:
    out, stdout = tmp_path / "thread.json", io.StringIO()
    call_command("memhq_bench", "thread", *SMOKE, "--json", str(out), stdout=stdout)
    report = json.loads(out.read_text())
    for name in ("add_message", "prepare"):
        for mode in ("closed", "open"):
            figures = report["runs"][name][mode]
            assert set(figures) >= FIELDS, name
            assert figures["errors"] == 0, (name, mode, figures["error_kinds"])
            assert figures["requests"] > 0 and 0 < figures["p50_ms"] <= figures["p99_ms"]
    assert set(report["prepare_and_recall"]) == {"prepare_only", "recall_only", "sequential", "concurrent"}
    assert all(mode["p50_ms"] > 0 for mode in report["prepare_and_recall"].values())
    text = stdout.getvalue()
    assert "add_message [closed]" in text and "prepare [open]" in text and "[concurrent]" in text
    assert report["cleanup"]["project_deleted"] and report["cleanup"]["threads_deleted"] == 2
    assert not Project.objects.exists() and not Thread.objects.exists()
    assert not ThreadMessage.objects.exists() and not Memory.objects.exists()
    assert broker.llen("celery") == 0  # the compactions the load requested were purged


@pytest.mark.django_db(transaction=True)
def test_bench_thread_with_a_given_key_keeps_the_project(
    tmp_path: Path, broker: redis.Redis, project: Project
) -> None:
    Thread.objects.create(project=project, user_id="real-user", key="real-thread")
    key = project.test_key  # type: ignore[attr-defined]
    call_command("memhq_bench", "thread", *SMOKE, "--key", key, stdout=io.StringIO())
    assert Project.objects.filter(pk=project.pk).exists()
    assert list(Thread.objects.values_list("key", flat=True)) == ["real-thread"]
    assert not Memory.objects.exists()
