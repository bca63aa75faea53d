"""Path budgets before the view, and the docs/spec.md 8.4 headers on every limited response."""

import math

from django.http import JsonResponse

from apps.core.envelope import error_response
from apps.core.request_context import notes

from . import services
from .exceptions import LimiterUnavailable, RateLimited

OAUTH_DESCRIPTIONS = {
    429: "Too many requests. Retry after the number of seconds in Retry-After.",
    503: "The service is temporarily unavailable. Retry after the number of seconds in Retry-After.",
}


def is_oauth(path: str) -> bool:
    return path.startswith("/oauth/")


def render(request, error) -> JsonResponse:
    if not is_oauth(request.path):
        return error_response(request, error)
    # RFC 6749 5.2 shape (docs/spec.md 7.3): no envelope on /oauth/*.
    response = JsonResponse(
        {"error": "temporarily_unavailable", "error_description": OAUTH_DESCRIPTIONS[error.status]},
        status=error.status,
    )
    response["Cache-Control"] = "no-store"
    response["Pragma"] = "no-cache"
    for name, value in error.headers.items():
        response[name] = value
    return response


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
