"""POST /mcp: the HTTP half. Everything before the JSON-RPC layer answers with the envelope (docs/spec.md 7.4)."""

import json
from collections.abc import Iterator, Mapping
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.http.request import HttpHeaders
from django.views.decorators.csrf import csrf_exempt

from apps.core.envelope import error_response
from apps.core.errors import ApiError
from apps.core.statements import note_if_cancelled
from apps.core.surfaces import body_cap, declared_length

from . import protocol
from .access import principal_for_request

BODY_CAP = body_cap("/mcp")
JSON_TYPES = ("application/json", "application/*", "*/*")


@csrf_exempt
def mcp_endpoint(request):
    try:
        response = serve(request)
    except ApiError as error:
        response = error_response(request, error)
    except (OperationalError, InterfaceError) as outage:
        # The database unreachable, or a statement cancelled at its bound, in a tool or in the
        # credential lookup: the HTTP 503 of docs/spec.md 7.4, never an isError that hides it.
        note_if_cancelled(request, outage)
        response = error_response(request, ApiError("service_unavailable", headers={"Retry-After": "5"}))
    # Tool results are one user's data: no shared or browser cache keeps them.
    response["Cache-Control"] = "no-store"
    return response


def serve(request):
    # The query string is parsed only when there is one (any letter of the name may be escaped):
    # almost no call has a query.
    if request.META.get("QUERY_STRING") and "access_token" in request.GET:
        # Refused before any lookup, so a token leaked into a URL is never honoured.
        raise ApiError("token_in_query", param="access_token")
    check_origin(request)
    if request.method != "POST":
        raise ApiError(
            "method_not_allowed",
            "The MCP endpoint takes POST only: it is stateless and opens no event stream.",
            headers={"Allow": "POST"},
        )
    # The reads budget (docs/spec.md 8.1) is applied with the credential lookup: one store round trip.
    principal = principal_for_request(request)
    check_media_types(request)
    reply = protocol.handle(body=read_body(request), headers=RequestHeaders(request), principal=principal)
    if reply.body is None:
        return HttpResponse(status=reply.status)
    # Every reply body is JSON's own types already (the SDK's JSON-mode dumps, tool results checked
    # against their schemas): the standard encoder writes what JsonResponse's would, without its
    # encoder class built per response (and as bytes: ASCII, no charset to look up).
    return HttpResponse(json.dumps(reply.body).encode(), content_type="application/json", status=reply.status)


class RequestHeaders(Mapping):
    """The request's headers by any case of a name, each read from the WSGI environ when asked for.
    A call reads two or three; building every header's entry (``request.headers``) cost about a
    tenth of what /mcp adds to a GET /v1/me. Iterating builds them (the 2026 era's checks read all)."""

    def __init__(self, request):
        self.request = request

    def __getitem__(self, name: str) -> str:
        return self.request.META[HttpHeaders.to_wsgi_name(name)]

    def __iter__(self) -> Iterator[str]:
        return iter(self.request.headers)

    def __len__(self) -> int:
        return len(self.request.headers)


def allowed_origins() -> set[str]:
    configured = getattr(settings, "MCP_ALLOWED_ORIGINS", None)
    if configured:
        return set(configured)
    return {origin_of(settings.BASE_URL), origin_of(settings.APP_URL)}


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def origin_allowed(origin: str) -> bool:
    return origin.rstrip("/") in allowed_origins()


def check_origin(request) -> None:
    # A browser page may only drive /mcp from an origin we trust (DNS-rebinding
    # guard of the MCP transport); clients that are not browsers send no Origin.
    origin = request.META.get("HTTP_ORIGIN")
    if origin is not None and not origin_allowed(origin):
        raise ApiError("forbidden", "Requests from this web origin are not allowed on the MCP endpoint.")


def cors_enabled(sender, request, **kwargs) -> bool:
    """django-cors-headers' ``check_request_enabled`` for /mcp (left out of CORS_URLS_REGEX).

    CORS answers for /mcp only when check_origin would admit the origin: a preflight
    from any other origin reaches the view and gets its 403, never a ``*`` that
    tells the browser to go ahead with a request the view then refuses.
    """
    if request.path_info != "/mcp":
        return False
    origin = request.META.get("HTTP_ORIGIN")
    return origin is None or origin_allowed(origin)


def media_type(value: str) -> str:
    return value.split(";", 1)[0].strip().lower()


def check_media_types(request) -> None:
    if media_type(request.META.get("CONTENT_TYPE", "")) != "application/json":
        raise ApiError("unsupported_media_type", "Send the JSON-RPC message as application/json.")
    accept = request.META.get("HTTP_ACCEPT")
    if accept and not any(media_type(item) in JSON_TYPES for item in accept.split(",")):
        raise ApiError("not_acceptable", "The MCP endpoint answers with application/json; allow it in Accept.")


def read_body(request) -> bytes:
    length = declared_length(request)
    if length is None:
        raise ApiError("invalid_body", "Content-Length is not a number.")
    if length > BODY_CAP:
        raise too_large()
    try:
        return request.body
    except RequestDataTooBig:
        raise too_large() from None


def too_large() -> ApiError:
    return ApiError("request_too_large", f"The request body is over the {BODY_CAP // 1024} KB limit.")
