"""Rendering of the error envelope (docs/spec.md 2.4)."""

from django.conf import settings
from django.http import HttpRequest, JsonResponse

from .errors import ApiError
from .request_context import notes


def error_body(request: HttpRequest | None, error: ApiError) -> dict:
    body = {
        "type": error.entry.type,
        "code": error.code,
        "message": error.message,
        "param": error.param,
        "doc_url": f"{settings.DOCS_URL}/errors#{error.code}",
        "request_id": (notes(request).request_id or None) if request is not None else None,
    }
    if error.entry.type == "insufficient_credits_error":
        body["billing_url"] = f"{settings.APP_URL}/billing"
    body.update(error.extra)
    return {"error": body}


def error_response(request: HttpRequest | None, error: ApiError) -> JsonResponse:
    response = JsonResponse(error_body(request, error), status=error.status)
    apply_error_headers(response, error)
    return response


def apply_error_headers(response, error: ApiError) -> None:
    response["Cache-Control"] = "no-store"
    for name, value in error.headers.items():
        response[name] = value


def render(request: HttpRequest | None, code: str, message: str | None = None, **kwargs) -> JsonResponse:
    return error_response(request, ApiError(code, message, **kwargs))


def oauth_error_response(error: str, description: str | None = None, *, status: int = 400, headers=None):
    """The RFC 6749 5.2 error body of the OAuth endpoints (docs/spec.md 7.3), never the envelope; never cached."""
    body = {"error": error}
    if description:
        body["error_description"] = description
    response = JsonResponse(body, status=status)
    response["Cache-Control"] = "no-store"
    response["Pragma"] = "no-cache"
    for name, value in (headers or {}).items():
        response[name] = value
    return response
