"""A worker keeps its database connection from task to task, as a web process keeps it between requests,
and drops one that broke."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import psycopg
import pytest
from celery.fixups.django import DjangoWorkerFixup
from django.db import OperationalError, connection

from config import celery as celery_config
from config.celery import app

TASK = SimpleNamespace(request=SimpleNamespace(is_eager=False))


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def test_celerys_django_fixup_leaves_the_connection_open_around_tasks(transactional_db: None) -> None:
    pid = backend_pid()
    fixup = DjangoWorkerFixup(app)
    for _ in range(20):  # what a worker does around ten tasks
        fixup.close_database()
        celery_config._recycle_connections(sender=TASK)
    assert backend_pid() == pid


def test_a_connection_that_broke_during_a_task_is_replaced_after_it(transactional_db: None) -> None:
    pid = backend_pid()
    params: dict[str, Any] = connection.get_connection_params()
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    with pytest.raises(OperationalError):
        backend_pid()  # the task's query fails (a transient error: the task is retried)
    celery_config._recycle_connections(sender=TASK)
    assert backend_pid() != pid


def test_an_eager_task_leaves_its_callers_transaction_alone(db: None) -> None:
    pid = backend_pid()  # inside the test's transaction: autocommit is off
    celery_config._recycle_connections(sender=SimpleNamespace(request=SimpleNamespace(is_eager=True)))
    assert connection.in_atomic_block and backend_pid() == pid
