"""One error shape for every error: ``{"error": {"code", "message", "fields"}}``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, JsonResponse
from rest_framework import exceptions, status
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
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
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
    return response


def json_404(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse(error_body(404, "Not found."), status=404)


def json_500(request: HttpRequest) -> JsonResponse:
    return JsonResponse(error_body(500, "Internal server error."), status=500)
