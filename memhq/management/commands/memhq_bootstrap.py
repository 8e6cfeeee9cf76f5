"""What `make run` does before starting the processes: check the database, migrate, collect the static files
(admin, Swagger UI, graph page; when changed), empty the Prometheus multiprocess directory, create a demo
project.

The demo project's key and the admin password are generated once and kept in ./var (the local data
directory, like the embedded database), so every `make run` can print them again.
"""

from __future__ import annotations

import secrets
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


def check_vector_extension() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        if cursor.fetchone() is None:
            raise CommandError(
                "The PostgreSQL server at DATABASE_URL does not have the pgvector extension ('vector'). "
                "Install pgvector 0.8+ on that server (e.g. the pgvector/pgvector Docker image), "
                "or unset DATABASE_URL to use the embedded PostgreSQL."
            )


class Command(BaseCommand):
    help = __doc__

    def handle(self, *args: Any, **options: Any) -> None:
        check_vector_extension()
        call_command("migrate", interactive=False, verbosity=0)
        collect_static_if_stale()
        reset_multiprocess_dir()
        var = Path(settings.BASE_DIR) / "var"
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
        key = (
            key_file.read_text() if key_file.exists() else "(created elsewhere; make one with memhq_project)"
        )
        password = password_file.read_text() if password_file.exists() else "(set elsewhere)"
        self.stdout.write(
            f"\nMemHQ is starting on http://127.0.0.1:8000\n"
            f"  demo project API key: {key}\n"
            f"  admin: http://127.0.0.1:8000/admin/  user {ADMIN_USERNAME}  password {password}\n"
        )
