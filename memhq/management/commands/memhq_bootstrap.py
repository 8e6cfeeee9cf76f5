"""What `make run` does before starting the processes: check the database, migrate, collect the static files
(admin, Swagger UI, graph page; when changed), empty the Prometheus multiprocess directory, create a demo
project.

The demo project's key and the admin password are generated once and kept in ./var (the local data
directory, like the embedded database), so every `make run` can print them again.

``--banner`` (run by `make run` in the background beside the processes) waits until the web process answers
on MEMHQ_BIND (through the front, config/Caddyfile) and prints where MemHQ is, the key and the password,
after the start-up logs, so they do not scroll away.
"""

from __future__ import annotations

import os
import secrets
import time
import urllib.error
import urllib.request
from argparse import ArgumentParser
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from memhq.models import Project
from memhq.ops.metrics import reset_multiprocess_dir
from memhq.ops.static import collect_static_if_stale
from memhq.services.tenancy import project_create

DEMO_PROJECT = "demo"
ADMIN_USERNAME = "admin"
DEFAULT_BIND = "127.0.0.1:8000"  # the Procfile's default for MEMHQ_BIND (config/front.py)
FRONT_ERROR_HEADER = "MemHQ-Error-Source"  # set by the front (config/Caddyfile) on what it answers itself
BANNER_WAIT_S = 120.0
WILDCARD_HOSTS = {"", "0.0.0.0", "::", "[::]"}


def check_vector_extension() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        if cursor.fetchone() is None:
            raise CommandError(
                "The PostgreSQL server at DATABASE_URL does not have the pgvector extension ('vector'). "
                "Install pgvector 0.8+ on that server (e.g. the pgvector/pgvector Docker image), "
                "or unset DATABASE_URL to use the embedded PostgreSQL."
            )


@dataclass(frozen=True)
class Address:
    url: str  # where a client on this machine reaches the web process
    listening: str  # what the front (config/front.py) listens on, in words


def parse_bind(bind: str) -> Address:
    """gunicorn's ``--bind`` value (HOST:PORT, HOST, :PORT, [IPv6]:PORT, unix:PATH) → where to reach it."""
    if bind.startswith("unix:"):
        return Address(url="", listening=f"the Unix socket {bind[5:]}")
    host, sep, port = bind.rpartition(":") if not bind.endswith("]") else (bind, "", "")
    if not sep:
        host, port = bind, "8000"
    if host in WILDCARD_HOSTS:
        return Address(url=f"http://127.0.0.1:{port}", listening=f"every interface, port {port}")
    return Address(url=f"http://{host}:{port}", listening=f"{host}, port {port}")


def wait_for_web(url: str, deadline_s: float) -> bool:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                return True
        except urllib.error.HTTPError as error:
            if error.headers.get(FRONT_ERROR_HEADER) != "front":
                return True  # the app answers (an unhealthy answer is still an answer; /healthz says why)
            time.sleep(0.25)  # the front answers for gunicorn, which is not up yet
        except OSError:
            time.sleep(0.25)
    return False


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--banner", action="store_true", help="wait for the web process, then print the banner"
        )
        parser.add_argument("--wait", type=float, default=BANNER_WAIT_S, help="seconds to wait for it")

    def handle(self, *args: Any, **options: Any) -> None:
        var = Path(settings.BASE_DIR) / "var"
        if options["banner"]:
            self.banner(var, options["wait"])
            return
        check_vector_extension()
        call_command("migrate", interactive=False, verbosity=0)
        collect_static_if_stale()
        reset_multiprocess_dir()
        var.mkdir(exist_ok=True)
        key_file = var / "demo-api-key"
        if not Project.objects.filter(name=DEMO_PROJECT).exists():
            _, issued = project_create(name=DEMO_PROJECT)
            key_file.write_text(issued.plaintext)
            key_file.chmod(0o600)
        password_file = var / "admin-password"
        user_model = get_user_model()
        if not user_model.objects.filter(username=ADMIN_USERNAME).exists():
            password = secrets.token_urlsafe(12)
            user_model.objects.create_superuser(ADMIN_USERNAME, "", password)
            password_file.write_text(password)
            password_file.chmod(0o600)
        self.stdout.write("MemHQ: database ready; starting web, worker and beat …")

    def banner(self, var: Path, wait_s: float) -> None:
        address = parse_bind(os.environ.get("MEMHQ_BIND") or DEFAULT_BIND)
        up = wait_for_web(address.url, wait_s) if address.url else True
        key_file, password_file = var / "demo-api-key", var / "admin-password"
        key = key_file.read_text().strip() if key_file.exists() else ""
        password = password_file.read_text().strip() if password_file.exists() else ""
        base = address.url or "http://<your proxy>"
        lines = [
            "",
            "=" * 72,
            f"MemHQ is {'up' if up else 'NOT answering yet'}: {base}   (listening on {address.listening})",
            f"  API docs:   {base}/docs",
            (
                f"  API key:    {key}   (saved in {key_file})"
                if key
                else "  API key:    none saved here; make one with manage.py memhq_project key create demo"
            ),
            f"  admin:      {base}/admin/   user {ADMIN_USERNAME}  password "
            + (f"{password}   (saved in {password_file})" if password else "(set elsewhere)"),
            "",
            *([f"  export MEMHQ_URL={base} MEMHQ_KEY=$(cat {key_file})"] if key else []),
            "  Another shell's manage.py reaches these servers while this runs (var/servers.json).",
            "  Ctrl-C stops everything; the data stays in var/.",
            "=" * 72,
        ]
        self.stdout.write("\n".join(lines))
