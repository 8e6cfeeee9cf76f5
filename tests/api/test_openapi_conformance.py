"""The OpenAPI schema is the truth: schemathesis generates requests for every operation from the schema the
API serves and checks each answer: never a 5xx, a status the operation documents, the documented content
type, a body that matches the documented schema (lists as pages, the one error shape on 4XX). Bounded:
``EXAMPLES`` per operation (``MEMHQ_SCHEMATHESIS_EXAMPLES`` to run more on demand)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from config.wsgi import application
from memhq.models import Project

EXAMPLES = int(os.environ.get("MEMHQ_SCHEMATHESIS_EXAMPLES", "15"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


#: The schema as /v1/memhq/openapi.json serves it (no database needed to serve it), called in process.
schema = schemathesis.openapi.from_wsgi("/v1/memhq/openapi.json", application)


@pytest.fixture(autouse=True)
def keep_the_test_connection(db: None) -> Iterator[None]:
    """As Django's test client does: requests leave the test's connection open (rolled back afterwards)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    # One project (and its key) serves every generated request of an operation.
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.function_scoped_fixture,
    ],
)
def test_every_operation_answers_as_its_schema_says(case: Any, project: Project) -> None:
    key = project.test_key  # type: ignore[attr-defined]
    case.call_and_validate(headers={"Authorization": f"Bearer {key}"}, checks=CHECKS)
