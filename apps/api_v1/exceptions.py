"""DRF's exception handler, rendering every failure as the envelope of docs/spec.md 2.4."""

import logging

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions

from apps.core.envelope import error_response
from apps.core.errors import ApiError
from apps.core.middleware import is_database_outage
from apps.core.statements import note_if_cancelled
from apps.credentials.challenges import MISSING_MESSAGE, invalid_token

from .authentication import RESOURCE_PATH

logger = logging.getLogger(__name__)

SIMPLE = {
    exceptions.ParseError: "invalid_body",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.Throttled: "rate_limited",
    DjangoPermissionDenied: "forbidden",
    Http404: "not_found",
    RequestDataTooBig: "request_too_large",
}

BY_STATUS = {400: "invalid_request", 401: "invalid_token", 403: "forbidden", 404: "not_found", 409: "conflict"}


def to_api_error(exc: Exception) -> ApiError:
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, exceptions.NotAuthenticated):
        return invalid_token(RESOURCE_PATH, MISSING_MESSAGE)
    if isinstance(exc, exceptions.AuthenticationFailed):
        return invalid_token(RESOURCE_PATH)
    if isinstance(exc, exceptions.MethodNotAllowed):
        return ApiError("method_not_allowed", f"{exc.args[0] if exc.args else 'This'} is not allowed on this path.")
    for kind, code in SIMPLE.items():
        if isinstance(exc, kind):
            return ApiError(code)
    if isinstance(exc, exceptions.ValidationError):
        return validation_error(exc.detail)
    if isinstance(exc, exceptions.APIException):
        return ApiError(BY_STATUS.get(exc.status_code, "invalid_request"))
    if is_database_outage(exc):
        return ApiError("service_unavailable", headers={"Retry-After": "5"})
    logger.exception("unhandled error in /v1 view")
    return ApiError("internal_error")


def validation_error(detail) -> ApiError:
    if isinstance(detail, dict) and detail:
        field, messages = next(iter(detail.items()))
        message = messages[0] if isinstance(messages, list) and messages else messages
        param = None if field == "non_field_errors" else field
        return ApiError("invalid_request", f"{field}: {message}" if param else str(message), param=param)
    return ApiError("invalid_request")


def exception_handler(exc, context):
    request = getattr(context.get("request"), "_request", context.get("request"))
    if is_database_outage(exc):
        note_if_cancelled(request, exc)
    return error_response(request, to_api_error(exc))
