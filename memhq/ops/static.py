"""Collect static files when the collected copy is missing or older than a source file.

``collectstatic`` re-hashes and re-compresses every file on each run (about 5 s here), so the set-up paths
(memhq_bootstrap, the test session) call this instead; the Docker build runs collectstatic itself.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles.finders import get_finders
from django.core.management import call_command

MANIFEST_NAME = "staticfiles.json"


def newest_source_mtime() -> float:
    newest = 0.0
    for finder in get_finders():
        for path, storage in finder.list([]):
            newest = max(newest, Path(storage.path(path)).stat().st_mtime)
    return newest


def static_is_stale() -> bool:
    manifest = Path(settings.STATIC_ROOT) / MANIFEST_NAME
    return not manifest.exists() or manifest.stat().st_mtime < newest_source_mtime()


def collect_static_if_stale() -> bool:
    """Run ``collectstatic`` when needed; True when it ran."""
    if not static_is_stale():
        return False
    call_command("collectstatic", interactive=False, verbosity=0)
    return True
