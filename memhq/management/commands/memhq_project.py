"""Projects and API keys from the command line. A key's secret is printed once and never stored.

manage.py memhq_project create NAME
manage.py memhq_project key create PROJECT_NAME [--name LABEL]
manage.py memhq_project key revoke KEY_PREFIX
"""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import IntegrityError

from memhq.models import ApiKey, Project
from memhq.services.tenancy import api_key_create, api_key_revoke, project_create


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: ArgumentParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a project and print its first API key")
        create.add_argument("name")
        key = sub.add_parser("key", help="create or revoke API keys")
        key_sub = key.add_subparsers(dest="key_action", required=True)
        key_create = key_sub.add_parser("create")
        key_create.add_argument("project")
        key_create.add_argument("--name", default="")
        key_revoke = key_sub.add_parser("revoke")
        key_revoke.add_argument("prefix", help="the part between mhq_ and the next underscore")

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
        else:
            try:
                revoked = api_key_revoke(prefix=options["prefix"])
            except ApiKey.DoesNotExist:
                raise CommandError(f"no API key with prefix {options['prefix']!r}") from None
            self.stdout.write(f"revoked {revoked} at {revoked.revoked_at:%Y-%m-%d %H:%M:%S} UTC")
