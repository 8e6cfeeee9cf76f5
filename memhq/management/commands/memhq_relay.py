"""``manage.py memhq_relay``: publish committed episodes from the Postgres outbox (ingestion/relay.py)."""

from __future__ import annotations

import signal
from typing import Any

from django.core.management.base import BaseCommand

from ingestion.relay import Relay


class Command(BaseCommand):
    help = "Publish committed episodes from the Postgres outbox to the broker (woken by NOTIFY on commit)."

    def handle(self, *args: Any, **options: Any) -> None:
        relay = Relay()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: relay.stop.set())
        relay.run()
        self.stdout.write(f"relay stopped after publishing {relay.published} episodes")
