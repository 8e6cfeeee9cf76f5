"""One error shape for every error: ``{"error": {"code", "message", "fields"}}``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from rest_framework import exceptions, status
from rest_framework.pagination import CursorPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from memhq.services.erasure_guard import ErasureInProgress

CODES = {
    status.HTTP_400_BAD_REQUEST: "invalid",
    status.HTTP_401_UNAUTHORIZED: "unauthenticated",
    status.HTTP_403_FORBIDDEN: "forbidden",
    status.HTTP_404_NOT_FOUND: "not_found",
    status.HTTP_405_METHOD_NOT_ALLOWED: "method_not_allowed",
    status.HTTP_406_NOT_ACCEPTABLE: "not_acceptable",
    status.HTTP_409_CONFLICT: "conflict",
    status.HTTP_413_REQUEST_ENTITY_TOO_LARGE: "too_large",
    status.HTTP_415_UNSUPPORTED_MEDIA_TYPE: "unsupported_media_type",
    status.HTTP_429_TOO_MANY_REQUESTS: "rate_limited",
    status.HTTP_500_INTERNAL_SERVER_ERROR: "server_error",
    status.HTTP_503_SERVICE_UNAVAILABLE: "unavailable",
}


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "Conflict."
    default_code = "conflict"


class DatabaseUnavailable(exceptions.APIException):
    """The database refused or did not answer in time: the client should retry. A refused call wrote
    nothing; one cut by the query watchdog (memhq/ops/query_watchdog.py) may have been applied, which is why
    retries of writes carry an ``Idempotency-Key``."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = (
        "The database is unavailable or did not answer in time. Retry shortly: a write sent again with the "
        "same Idempotency-Key is never stored twice."
    )
    default_code = "unavailable"


#: What a database that is down, restarting or unreachable raises (never a bad request: those are 4xx).
DATABASE_DOWN = (OperationalError, InterfaceError)


def unavailable_response() -> JsonResponse:
    response = JsonResponse(error_body(503, str(DatabaseUnavailable.default_detail)), status=503)
    response["Retry-After"] = str(settings.MEMHQ_RETRY_AFTER_S)
    return response


class DatabaseUnavailableMiddleware:
    """503 + Retry-After, in the error shape, for a database outage outside DRF's views (admin, pages)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            return self.get_response(request)
        except DATABASE_DOWN:
            return unavailable_response()

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return unavailable_response() if isinstance(exception, DATABASE_DOWN) else None


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "Request body too large."
    default_code = "too_large"


def error_body(status_code: int, message: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": CODES.get(status_code, "error"), "message": message, "fields": fields or {}}}


def _flatten(detail: Any) -> Any:
    """DRF ErrorDetail trees → plain lists of strings keyed like the input."""
    if isinstance(detail, dict):
        return {str(key): _flatten(value) for key, value in detail.items()}
    if isinstance(detail, list):
        if all(isinstance(item, str) for item in detail):
            return [str(item) for item in detail]
        return [_flatten(item) for item in detail]
    return [str(detail)]


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, exceptions.NotFound) and str(exc.detail) == str(
        CursorPagination.invalid_cursor_message
    ):
        # DRF answers a cursor it cannot decode with 404; it is a bad parameter, not a missing resource.
        exc = exceptions.ValidationError({"cursor": [str(CursorPagination.invalid_cursor_message)]})
    elif isinstance(exc, DjangoValidationError):
        # A value the ORM refused (a decodable cursor whose position is no date): bad input, not a 500.
        exc = exceptions.ValidationError({"non_field_errors": [str(message) for message in exc.messages]})
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, DATABASE_DOWN):
        exc = DatabaseUnavailable()
    elif isinstance(exc, ErasureInProgress):  # any write for a user whose data is being erased right now
        exc = Conflict("This user's data is being erased; try again when the erasure has finished.")
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # Django's handler500 answers in the same shape
    if isinstance(exc, exceptions.ValidationError):
        fields = (
            _flatten(exc.detail)
            if isinstance(exc.detail, dict)
            else {"non_field_errors": _flatten(exc.detail)}
        )
        response.data = error_body(response.status_code, "Invalid request.", fields)
    else:
        detail = getattr(exc, "detail", str(exc))
        response.data = error_body(response.status_code, str(detail))
    if isinstance(exc, DatabaseUnavailable):
        response["Retry-After"] = str(settings.MEMHQ_RETRY_AFTER_S)
    return response


def json_404(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse(error_body(404, "Not found."), status=404)


def json_500(request: HttpRequest) -> JsonResponse:
    return JsonResponse(error_body(500, "Internal server error."), status=500)
