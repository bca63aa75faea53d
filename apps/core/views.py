"""Django-level 404 and 500 handlers: the envelope on machine paths, a page elsewhere."""

from django.conf import settings
from django.views import defaults

from .envelope import render

ENVELOPE_PREFIXES = ("/v1/", "/mcp", "/api/")


def wants_envelope(request) -> bool:
    return request.path == "/v1" or request.path.startswith(ENVELOPE_PREFIXES)


def handler404(request, exception=None):
    if wants_envelope(request):
        if request.path == "/v1" or request.path.startswith("/v1/"):
            return render(request, "route_not_found", route_not_found_message())
        return render(request, "not_found")
    return defaults.page_not_found(request, exception)


def handler500(request):
    if wants_envelope(request):
        return render(request, "internal_error")
    return defaults.server_error(request)


def route_not_found_message() -> str:
    return f"Unknown API route. The routes that exist are listed in {settings.BASE_URL}/v1/openapi.json."
