"""``DATABASES`` entries: the primary (``default``) and the read replicas (``DATABASE_REPLICA_URLS``).

Every connection gets the same session options (pgvector's iterative scans, recall's prepared statement);
replicas get a shorter connect timeout, since a replica that does not answer is left out (memhq/replicas/),
not waited for. Replica aliases are ``replica1``, ``replica2`` … in the order given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from config.env import parse_database_url

PRIMARY = "default"
REPLICA_PREFIX = "replica"


@dataclass(frozen=True)
class Session:
    """What every connection, primary or replica, is opened with."""

    hnsw_ef_search: int
    prepare_threshold: int | None
    conn_max_age: int


def connection_settings(url: str, session: Session, *, connect_timeout_s: int) -> dict[str, Any]:
    db = parse_database_url(url)
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": db.name,
        "USER": db.user,
        "PASSWORD": db.password,
        "HOST": db.host,
        "PORT": db.port,
        "OPTIONS": {
            # A stopped or unreachable database fails the request within seconds (503), not a client timeout.
            "connect_timeout": connect_timeout_s,
            **db.options,
            "options": f"-c hnsw.iterative_scan=relaxed_order -c hnsw.ef_search={session.hnsw_ef_search}",
            # psycopg prepares only what is executed with prepare=True (recall's statement): never by count.
            "prepare_threshold": session.prepare_threshold,
        },
        "CONN_MAX_AGE": session.conn_max_age,
        "CONN_HEALTH_CHECKS": True,
    }


def replica_databases(
    urls: list[str], session: Session, *, connect_timeout_s: int
) -> dict[str, dict[str, Any]]:
    """One alias per URL. ``TEST.MIRROR``: a test run with replicas configured reads its test database
    through the primary's connection instead of creating one per replica."""
    return {
        f"{REPLICA_PREFIX}{number}": {
            **connection_settings(url, session, connect_timeout_s=connect_timeout_s),
            "TEST": {"MIRROR": PRIMARY},
        }
        for number, url in enumerate(urls, start=1)
    }
