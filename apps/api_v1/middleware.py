"""Rules every /v1 request meets before and after its view (docs/spec.md 4 general rules)."""

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.core.handlers.exception import response_for_exception
from django.utils.cache import patch_cache_control

from apps.core.envelope import render
from apps.core.errors import ApiError
from apps.core.request_context import notes
from apps.core.surfaces import body_cap as surface_body_cap
from apps.core.surfaces import declared_length, is_v1

from . import versions
from .versioning import requested_version

# The /v1 body cap (docs/spec.md 8.5); a view may name a smaller one in ``body_cap``.
BODY_CAP = surface_body_cap("/v1")


def has_credential(request) -> bool:
    """A bearer credential or a dashboard session came with the request."""
    return "HTTP_AUTHORIZATION" in request.META or settings.SESSION_COOKIE_NAME in request.COOKIES


def body_cap(view_func) -> int:
    return getattr(getattr(view_func, "view_class", view_func), "body_cap", BODY_CAP)


class ApiV1Middleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not is_v1(request.path):
            return self.get_response(request)
        response = self.refuse_early(request) or self.get_response(request)
        self.add_version_headers(request, response)
        if has_credential(request):
            # An account's data, success or error: no shared or browser cache may keep it.
            if "Cache-Control" in response:
                patch_cache_control(response, no_store=True)  # keeps never_cache's other directives
            else:
                response["Cache-Control"] = "no-store"
        return response

    @staticmethod
    def refuse_early(request):
        if not request.META.get("QUERY_STRING"):
            return None
        try:
            # Refused before any credential lookup, so a leaked token is never used.
            in_query = "access_token" in request.GET
        except SuspiciousOperation as exc:
            # Over 1,000 parameters: Django's own 400 (apps/core/views.handler400), still versioned.
            return response_for_exception(request, exc)
        if in_query:
            return render(request, "token_in_query", param="access_token")
        return None

    def process_view(self, request, view_func, view_args, view_kwargs):
        # After routing (the cap is the view's) and before anything reads the body.
        if not is_v1(request.path):
            return None
        length = declared_length(request)
        if length is None:
            return render(request, "invalid_body", "Content-Length is not a number.")
        cap = body_cap(view_func)
        if length > cap:
            return render(request, "request_too_large", f"The request body is over the {cap // 1024} KB limit.")
        return None

    @staticmethod
    def add_version_headers(request, response):
        name = notes(request).api_version
        if name is None:
            try:
                name = requested_version(request) or versions.CURRENT_VERSION
            except ApiError:
                name = versions.CURRENT_VERSION
        response["Service-Version"] = name
        version = versions.get_version(name)
        if version is not None:
            for header, value in version.deprecation_headers().items():
                response[header] = value
