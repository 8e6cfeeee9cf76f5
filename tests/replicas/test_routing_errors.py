"""Which failures of a read on a replica leave that replica out (its connection) and which only send the
read to the primary (the query: a recovery conflict, a bad statement)."""

from __future__ import annotations

import psycopg
from django.db import DatabaseError, OperationalError, ProgrammingError

from memhq.replicas.routing import _replica_failed


def wrapped(django_error: type[DatabaseError], cause: Exception) -> DatabaseError:
    error = django_error(str(cause))
    error.__cause__ = cause
    return error


def test_a_lost_connection_leaves_the_replica_out() -> None:
    lost = psycopg.OperationalError("server closed the connection unexpectedly")
    assert _replica_failed(wrapped(OperationalError, lost))


def test_a_recovery_conflict_or_a_query_error_does_not() -> None:
    conflict = psycopg.errors.SerializationFailure("canceling statement due to conflict with recovery")
    assert conflict.sqlstate == "40001"
    assert not _replica_failed(wrapped(OperationalError, conflict))
    assert not _replica_failed(wrapped(ProgrammingError, psycopg.ProgrammingError("syntax error")))
