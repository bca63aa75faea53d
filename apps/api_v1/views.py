from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiJsonRenderer2
from drf_spectacular.views import SpectacularJSONAPIView
from rest_framework.permissions import AllowAny

from apps.core.envelope import render
from apps.core.views import route_not_found_message


class OpenApiView(SpectacularJSONAPIView):
    # application/json first: a client sending `Accept: application/json` must be served.
    renderer_classes = [OpenApiJsonRenderer2, OpenApiJsonRenderer]
    authentication_classes = []
    permission_classes = [AllowAny]
    http_method_names = ["get", "head", "options"]


@csrf_exempt
def route_not_found(request, *args, **kwargs):
    return render(request, "route_not_found", route_not_found_message())
