from django.db import InterfaceError, OperationalError
from django.http import JsonResponse

from .envelope import render
from .ids import new_id
from .views import wants_envelope


class RequestIdMiddleware:
    """Gives every request an id and every response, whatever the path, its header.

    Outermost in the stack, so responses from handler404/handler500 and from
    other middleware pass through it too.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.request_id = new_id("req_")
        response = self.get_response(request)
        response["Request-Id"] = request.request_id
        return response


class DatabaseUnavailableMiddleware:
    """A database outage answers 503 with Retry-After on machine paths, never a 500 page.

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
        if request.path.startswith("/oauth/"):
            response = JsonResponse(
                {"error": "temporarily_unavailable", "error_description": "The service is temporarily unavailable."},
                status=503,
            )
            response["Cache-Control"] = "no-store"
        elif wants_envelope(request):
            response = render(request, "service_unavailable")
        else:
            return None
        response["Retry-After"] = self.RETRY_AFTER
        return response


def is_database_outage(exception) -> bool:
    return isinstance(exception, (OperationalError, InterfaceError))
