"""``manage.py memhq_embed_second``: give every stored message of a user its second-embedder vector
(``memhq.ai.e5``), after ``MEMHQ_SECOND_EMBEDDER=e5`` was turned on for an installation that has data.
Restartable: episodes done are skipped. See ``ingestion.second_embedder``."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from ingestion import second_embedder
from memhq.ai import e5


class Command(BaseCommand):
    help = "Embed stored messages with the second embedder (MEMHQ_SECOND_EMBEDDER=e5)."

    def handle(self, *args: Any, **options: Any) -> None:
        if not e5.enabled():
            raise CommandError("MEMHQ_SECOND_EMBEDDER is off: set it to e5 first (docs/configuration.md)")
        started = time.perf_counter()
        done = second_embedder.fill_all()
        self.stdout.write(f"embedded {done} messages in {time.perf_counter() - started:.1f} s")
