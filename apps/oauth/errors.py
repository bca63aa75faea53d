"""OAuth endpoint errors in the RFC 6749 section 5.2 shape (docs/spec.md 7.3), not the envelope."""

from django.http import JsonResponse


def oauth_error(error: str, description: str | None = None, *, status: int = 400, headers=None) -> JsonResponse:
    body = {"error": error}
    if description:
        body["error_description"] = description
    response = JsonResponse(body, status=status)
    response["Cache-Control"] = "no-store"
    response["Pragma"] = "no-cache"
    for name, value in (headers or {}).items():
        response[name] = value
    return response
