from django.conf import settings
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiJsonRenderer2
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularJSONAPIView
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.envelope import render
from apps.core.views import route_not_found_message

from .versions import CURRENT_VERSION


class OpenApiView(SpectacularJSONAPIView):
    # application/json first: a client sending `Accept: application/json` must be served.
    renderer_classes = [OpenApiJsonRenderer2, OpenApiJsonRenderer]
    authentication_classes = []
    permission_classes = [AllowAny]
    http_method_names = ["get", "head", "options"]


@csrf_exempt
def route_not_found(request, *args, **kwargs):
    return render(request, "route_not_found", route_not_found_message())


def api_index() -> dict:
    """What ``GET /v1`` answers: where the API's reference and documentation are."""
    return {
        "object": "api",
        "url": f"{settings.BASE_URL}/v1",
        "version": CURRENT_VERSION,
        "openapi_url": f"{settings.BASE_URL}/v1/openapi.json",
        "reference_url": f"{settings.DOCS_URL}/api",
        "docs_url": settings.DOCS_URL,
    }


class IndexView(APIView):
    """The API's root, the address `make run` prints: where its reference is, for a person or a client that
    opens it. Outside the OpenAPI document, like the document itself."""

    authentication_classes = []
    permission_classes = [AllowAny]
    http_method_names = ["get", "head", "options"]

    @extend_schema(exclude=True)
    def get(self, request):
        return Response(api_index())
