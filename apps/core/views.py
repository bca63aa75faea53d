"""Django-level 404 and 500 handlers: the envelope on machine paths, a page elsewhere."""

import functools

from django.conf import settings
from django.http import JsonResponse
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


def bench_floor(request):
    return JsonResponse({"object": "floor", "ok": True})


def bench_floor_round_trip(request):
    """The floor plus one EVALSHA of a script that does nothing: what a Redis round trip alone costs.

    Sent as the limiter sends its own scripts, so the row measures the same client path.
    """
    from apps.ratelimit import conf

    store = conf.get_store()
    store.run_script(_noop_script(store), [], [])
    return JsonResponse({"object": "floor", "ok": True})


@functools.cache
def _noop_script(store):
    return store.client.register_script("return 1")
