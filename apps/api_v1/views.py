import functools

from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiJsonRenderer2
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularJSONAPIView
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.envelope import render
from apps.core.views import route_not_found_message
from apps.ratelimit import budgets

from .authentication import RESOURCE_PATH
from .credentials import bearer_from_header, resolve_bearer
from .exceptions import exception_handler
from .negotiation import FIRST_RENDERER_ACCEPTS
from .serializers import UserSerializer
from .versioning import version_for


class MeView(APIView):
    """The account the credential acts for (SPEC 2.1). Any scope suffices."""

    http_method_names = ["get", "head", "options"]

    @extend_schema(operation_id="retrieve_me", responses={200: UserSerializer}, summary="The connected account")
    def get(self, request):
        return Response(UserSerializer.from_principal(request.auth))


_json = JSONRenderer()


def allow_header(view_class) -> str:
    """The Allow header DRF gives every response of ``view_class`` (APIView.default_response_headers)."""
    view = view_class()
    view.setup(None)  # as as_view() does: a view with get() also answers HEAD
    return ", ".join(view.allowed_methods)


ME_ALLOW = allow_header(MeView)


def me_view():
    """GET /v1/me, the hottest read of the API (issue 9): MeView, with a fast path in front.

    The request nearly every client sends (GET, a bearer credential, JSON or
    anything accepted, no query string) is answered with DRF's own pieces (the
    bearer lookup, versioning, serializer, renderer and exception handler) but
    without a DRF request cycle, which cost about a tenth of the request.
    Anything else (HEAD, OPTIONS, other methods, content negotiation, no or a
    malformed Authorization header, a query string) is MeView's. Both answer
    alike: tests/api_v1/test_me_fast_path.py compares them. The wrapper keeps
    MeView's attributes, so the OpenAPI document still describes MeView.
    """
    drf_view = MeView.as_view()

    @functools.wraps(drf_view)
    def view(request, *args, **kwargs):
        secret = bearer_from_header(request)
        if (
            request.method != "GET"
            or not secret
            or request.META.get("QUERY_STRING")
            or request.META.get("HTTP_ACCEPT", "") not in FIRST_RENDERER_ACCEPTS
        ):
            return drf_view(request, *args, **kwargs)
        found = []

        def principal():
            if not found:
                # MeView's budget class for a bearer GET (apps.ratelimit.throttling.view_class).
                resolved = resolve_bearer(request, secret, resource_path=RESOURCE_PATH, budget_class=budgets.READS)
                found.append(resolved)
            return found[0]

        try:
            # DRF's order: a version named in the header is checked before the credential.
            version_for(request, principal)
            body = _json.render(UserSerializer.from_principal(principal()))
            response = HttpResponse(body, content_type=_json.media_type)
        except Exception as exc:
            response = exception_handler(exc, {"request": request})
        response["Allow"] = ME_ALLOW
        return response

    return view


class OpenApiView(SpectacularJSONAPIView):
    # application/json first: a client sending `Accept: application/json` must be served.
    renderer_classes = [OpenApiJsonRenderer2, OpenApiJsonRenderer]
    authentication_classes = []
    permission_classes = [AllowAny]
    http_method_names = ["get", "head", "options"]


@csrf_exempt
def route_not_found(request, *args, **kwargs):
    return render(request, "route_not_found", route_not_found_message())
