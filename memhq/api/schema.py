"""What the OpenAPI schema (drf-spectacular) needs beyond the serializers: list pages as they are returned,
and the one error shape on every operation. ``tests/api/test_openapi_conformance.py`` checks the API
against the schema with schemathesis."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

_PAGES: dict[type[serializers.Serializer], type[serializers.Serializer]] = {}


def page_of(item: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """The response of a cursor-paginated list of ``item``: ``{next, previous, results}`` (component
    ``Paginated<Item>List``)."""
    if item not in _PAGES:
        name = item.__name__.removesuffix("Serializer")
        _PAGES[item] = type(
            f"Paginated{name}ListSerializer",
            (serializers.Serializer,),
            {
                "next": serializers.URLField(allow_null=True, help_text="The next page, null on the last."),
                "previous": serializers.URLField(
                    allow_null=True, help_text="The page before, null on the first."
                ),
                "results": item(many=True),
                "__doc__": f"One page of {name} items, newest first.",
            },
        )
    return _PAGES[item]


ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "fields"],
            "properties": {
                "code": {"type": "string", "description": "invalid, unauthenticated, not_found, conflict, …"},
                "message": {"type": "string"},
                "fields": {
                    "type": "object",
                    "description": "Per input field, its errors (nested like the input); empty when none.",
                    "additionalProperties": True,
                },
            },
        }
    },
}

#: Every operation may answer these, in the one error shape (memhq/api/errors.py).
ERRORS = {
    "4XX": "Bad input (400, with field errors), missing key (401), unknown id (404), conflict (409), body "
    "too large (413), not JSON (415), over the rate limit (429).",
    "503": "The database is unavailable; try again after Retry-After.",
}


def add_error_responses(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the ``Error`` component and, on every operation, its 4XX and
    503 answers."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    reference = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            for code, description in ERRORS.items():
                responses.setdefault(code, {"description": description, "content": reference})
    return result
