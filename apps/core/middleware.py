from corsheaders.middleware import CorsMiddleware as DjangoCorsHeadersMiddleware
from django.conf import settings
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware as DjangoMessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessionMiddleware
from django.db import InterfaceError, OperationalError
from django.utils.cache import patch_vary_headers

from .envelope import oauth_error_response, render
from .ids import new_id
from .request_context import current_request, notes
from .statements import note_if_cancelled
from .surfaces import is_bearer_surface, is_oauth
from .views import wants_envelope


class RequestIdMiddleware:
    """Gives every request an id and every response, whatever the path, its header.

    Outermost in the stack, so responses from handler404/handler500 and from
    other middleware pass through it too.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = notes(request).request_id = new_id("req_")
        token = current_request.set(request)
        try:
            response = self.get_response(request)
        finally:
            current_request.reset(token)
        response["Request-Id"] = request_id
        return response


class DatabaseUnavailableMiddleware:
    """A database outage, or a statement cancelled at its bound, answers 503 with Retry-After on
    machine paths, never a 500 page.

    Views outside DRF (OAuth, MCP, consent API) reach this through
    ``process_exception``; DRF views map the same errors in their exception
    handler. Django marks the failed connection and closes it when the request
    finishes, so the next request reconnects by itself.
    """

    RETRY_AFTER = "5"

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not is_database_outage(exception):
            return None
        note_if_cancelled(request, exception)
        if is_oauth(request.path):
            response = oauth_error_response(
                "temporarily_unavailable", "The service is temporarily unavailable.", status=503
            )
        elif wants_envelope(request):
            response = render(request, "service_unavailable")
        else:
            return None
        response["Retry-After"] = self.RETRY_AFTER
        return response


def is_database_outage(exception) -> bool:
    """The database unreachable, or a statement it cancelled at the bound (apps/core/statements.py)."""
    return isinstance(exception, (OperationalError, InterfaceError))


class CorsMiddleware(DjangoCorsHeadersMiddleware):
    """django-cors-headers' middleware, answering a request that sends no Origin without building
    ``request.headers``: for such a request it only adds ``Vary: origin`` where CORS applies, which
    cost it about 11 us of a 340 us GET /v1/me (every API client but a browser sends no Origin)."""

    def add_response_headers(self, request, response):
        if "HTTP_ORIGIN" in request.META:
            return super().add_response_headers(request, response)
        enabled = getattr(request, "_cors_enabled", None)
        if enabled is None:
            enabled = self.is_enabled(request)
        if enabled:
            patch_vary_headers(response, ("origin",))
        return response


# --- Browser state, only where a browser can be the caller --------------------------
# /v1 and /mcp are called with a bearer credential (docs/spec.md 4.1, 4.7): for a caller
# that sends no session cookie there, a session, request.user and messages serve
# nothing, and building them cost about a fifth of a GET /v1/me. CSRF
# stays Django's own everywhere (cheap for csrf_exempt views, and check --deploy
# looks for it by name). A browser calling the dashboard's session endpoints under /v1 sends
# its session cookie and gets every middleware, as everywhere else.


def is_bearer_only(request) -> bool:
    if not is_bearer_surface(request.path_info):
        return False
    return settings.SESSION_COOKIE_NAME not in request.COOKIES


def browser_only(middleware_class):
    """``middleware_class``, skipped for bearer-only requests.

    A subclass, so Django's checks (admin.E408-E410) still find the middleware
    they require.
    """

    class BrowserOnly(middleware_class):
        def __call__(self, request):
            if is_bearer_only(request):
                return self.get_response(request)
            return super().__call__(request)

    BrowserOnly.__name__ = BrowserOnly.__qualname__ = middleware_class.__name__
    return BrowserOnly


SessionMiddleware = browser_only(DjangoSessionMiddleware)
AuthenticationMiddleware = browser_only(DjangoAuthenticationMiddleware)
MessageMiddleware = browser_only(DjangoMessageMiddleware)
