"""``@replica_read(scope)`` on a read endpoint's handler: it runs on a replica when one has replayed the
scope's last write (memhq/replicas/routing.py), else on the primary.

Scopes: ``user`` (the ``user_id`` of the body or the query string; without one, the project), ``thread``
(the URL's thread), ``project``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, Literal

from rest_framework.request import Request
from rest_framework.response import Response

from memhq.api.auth import project_of
from memhq.replicas import freshness, routing

Scope = Literal["user", "thread", "project"]
Handler = Callable[..., Response]


def _user_id(request: Request) -> str | None:
    source = request.query_params if request.method == "GET" else request.data
    value = source.get("user_id") if hasattr(source, "get") else None
    return value if isinstance(value, str) and value else None


def scopes_of(scope: Scope, request: Request, kwargs: dict[str, Any]) -> list[str]:
    project_id = project_of(request).pk
    if scope == "thread":
        return freshness.keys(project_id, thread_id=kwargs["thread_id"])[-1:]
    user_id = _user_id(request) if scope == "user" else None
    return freshness.keys(project_id, user_id=user_id)[-1:]


def replica_read(scope: Scope) -> Callable[[Handler], Handler]:
    def decorate(handler: Handler) -> Handler:
        @wraps(handler)
        def wrapped(view: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
            return routing.read(
                lambda: handler(view, request, *args, **kwargs), scopes_of(scope, request, kwargs)
            )

        return wrapped

    return decorate
