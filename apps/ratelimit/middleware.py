"""Path budgets before the view, and the docs/spec.md 8.4 headers on every limited response."""

import math

from django.http import HttpResponse
from django.template.loader import render_to_string

from apps.core.envelope import error_response, oauth_error_response
from apps.core.request_context import notes
from apps.core.surfaces import is_oauth, surface_of

from . import services
from .exceptions import LimiterUnavailable, RateLimited

OAUTH_DESCRIPTIONS = {
    429: "Too many requests. Retry after the number of seconds in Retry-After.",
    503: "The service is temporarily unavailable. Retry after the number of seconds in Retry-After.",
}


def render(request, error) -> HttpResponse:
    if not is_oauth(request.path):
        if surface_of(request.path_info) is None:
            return render_page(request, error)
        return error_response(request, error)
    # RFC 6749 5.2 shape (docs/spec.md 7.3): no envelope on /oauth/*.
    return oauth_error_response(
        "temporarily_unavailable", OAUTH_DESCRIPTIONS[error.status], status=error.status, headers=error.headers
    )


def render_page(request, error) -> HttpResponse:
    """A page path (sign-in, settings, admin): a page a person can read, never JSON or a 500."""
    seconds = int(error.headers.get("Retry-After", "1"))
    response = HttpResponse(
        render_to_string(
            "ratelimit/refused.html",
            {"unavailable": error.status == 503, "wait": wait_phrase(seconds)},
            request=request,
        ),
        status=error.status,
    )
    response["Cache-Control"] = "no-store"
    for name, value in error.headers.items():
        response[name] = value
    return response


def wait_phrase(seconds: int) -> str:
    """``seconds`` as a person reads a wait: "1 second", "45 seconds", "3 minutes"."""
    if seconds < 60:
        return f"{seconds} second{'' if seconds == 1 else 's'}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minute{'' if minutes == 1 else 's'}"


class RateLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.limit_path(request) or self.get_response(request)
        self.write_headers(request, response)
        return response

    @staticmethod
    def limit_path(request):
        if request.method == "OPTIONS":
            return None  # CORS preflights carry no credential and do no work
        try:
            services.ratelimit_path(request=request)
        except (RateLimited, LimiterUnavailable) as error:
            return render(request, error)
        return None

    def process_exception(self, request, exception):
        if isinstance(exception, RateLimited | LimiterUnavailable):
            return render(request, exception)
        return None

    @staticmethod
    def write_headers(request, response) -> None:
        decision = notes(request).ratelimit_decision
        if decision is None:
            return
        for name, value in decision.headers().items():
            response[name] = value
        if response.status_code == 429 and not decision.allowed and "Retry-After" not in response:
            response["Retry-After"] = str(max(1, math.ceil(decision.retry_after)))
