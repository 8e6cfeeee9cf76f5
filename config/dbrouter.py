"""Django's database router: reads go where ``memhq.replicas.routing`` chose for this request, writes and
migrations to the primary.

A read goes to a replica only inside ``routing.read`` (the read endpoints: recall, prepare, the lists and
details, the graph) and never while a transaction is open on the primary: whatever that transaction wrote
is visible only there. Raw SQL (recall's statement) asks ``routing.current()`` for its connection.
"""

from __future__ import annotations

from typing import Any

from django.db import connections

from config.databases import PRIMARY


class ReplicaRouter:
    def db_for_read(self, model: type, **hints: Any) -> str:
        from memhq.replicas import routing

        alias = routing.current()
        if alias != PRIMARY and connections[PRIMARY].in_atomic_block:
            return PRIMARY
        return alias

    def db_for_write(self, model: type, **hints: Any) -> str:
        return PRIMARY

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True  # replicas hold the primary's rows

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == PRIMARY
