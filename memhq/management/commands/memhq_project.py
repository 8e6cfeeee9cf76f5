"""Projects and API keys from the command line. A key's secret is printed once and never stored.

manage.py memhq_project create NAME
manage.py memhq_project key create PROJECT_NAME [--name LABEL]
manage.py memhq_project key list [PROJECT_NAME]
manage.py memhq_project key revoke KEY        (the whole key mhq_<prefix>_<secret>, or its prefix)

Run from any shell while `make run` is running: settings find its servers (config/localservers.py).
"""

from __future__ import annotations

from argparse import ArgumentParser
from datetime import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import IntegrityError

from memhq.models import ApiKey, Project
from memhq.selectors.tenancy import api_key_list
from memhq.services.tenancy import KEY_SCHEME, api_key_create, api_key_revoke, project_create, split_key


def key_prefix(value: str) -> str:
    """The lookup prefix of ``value``: a whole key, ``mhq_<prefix>``, or the prefix itself."""
    value = value.strip()
    parts = split_key(value)
    if parts is not None:
        return parts[0]
    scheme = f"{KEY_SCHEME}_"
    return value.removeprefix(scheme).rstrip("_") if value.startswith(scheme) else value


def _when(moment: datetime | None) -> str:
    return f"{moment:%Y-%m-%d %H:%M}" if moment else "-"


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: ArgumentParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a project and print its first API key")
        create.add_argument("name")
        key = sub.add_parser("key", help="create, list or revoke API keys")
        key_sub = key.add_subparsers(dest="key_action", required=True)
        key_create = key_sub.add_parser("create")
        key_create.add_argument("project")
        key_create.add_argument("--name", default="")
        key_list = key_sub.add_parser("list", help="every key (or one project's), secrets never shown")
        key_list.add_argument("project", nargs="?")
        key_revoke = key_sub.add_parser("revoke")
        key_revoke.add_argument("key", help="the whole key (mhq_<prefix>_<secret>) or its prefix")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] == "create":
            try:
                project, issued = project_create(name=options["name"])
            except IntegrityError:
                raise CommandError(f"a project named {options['name']!r} already exists") from None
            self.stdout.write(f"project {project.name} ({project.pk})")
            self.stdout.write(f"api key (shown once): {issued.plaintext}")
        elif options["key_action"] == "create":
            try:
                project = Project.objects.get(name=options["project"])
            except Project.DoesNotExist:
                raise CommandError(f"no project named {options['project']!r}") from None
            issued = api_key_create(project=project, name=options["name"])
            self.stdout.write(f"api key (shown once): {issued.plaintext}")
        elif options["key_action"] == "list":
            self.list_keys(options["project"])
        else:
            prefix = key_prefix(options["key"])
            try:
                revoked = api_key_revoke(prefix=prefix)
            except ApiKey.DoesNotExist:
                raise CommandError(f"no API key with prefix {prefix!r}") from None
            self.stdout.write(f"revoked {revoked} at {revoked.revoked_at:%Y-%m-%d %H:%M:%S} UTC")

    def list_keys(self, project_name: str | None) -> None:
        if project_name is not None and not Project.objects.filter(name=project_name).exists():
            raise CommandError(f"no project named {project_name!r}")
        rows = [("PROJECT", "KEY", "NAME", "CREATED (UTC)", "LAST USED", "REVOKED")]
        for key in api_key_list(project_name=project_name):
            rows.append(
                (
                    key.project.name,
                    f"mhq_{key.prefix}_…",
                    key.name or "-",
                    _when(key.created_at),
                    _when(key.last_used_at),
                    _when(key.revoked_at),
                )
            )
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            cells = (cell.ljust(width) for cell, width in zip(row, widths, strict=True))
            self.stdout.write("  ".join(cells).rstrip())
