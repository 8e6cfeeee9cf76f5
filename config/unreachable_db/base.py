"""A database engine for "no database configured": every connection attempt raises the reason.

Settings use it when DATABASE_URL is unset and no live `make run` recorded its embedded server (see
config/localservers.py), so that importing settings (mypy, collectstatic, ``manage.py help``) still works
while anything that needs the database stops with a message saying what to do.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db.backends.postgresql import base

PROBLEM_KEY = "MEMHQ_PROBLEM"


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        raise ImproperlyConfigured(self.settings_dict.get(PROBLEM_KEY) or "no database is configured")
