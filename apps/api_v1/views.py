from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiJsonRenderer2
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularJSONAPIView
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.envelope import render
from apps.core.views import route_not_found_message

from .serializers import UserSerializer


class MeView(APIView):
    """The account the credential acts for (SPEC 2.1). Any scope suffices."""

    http_method_names = ["get", "head", "options"]

    @extend_schema(operation_id="retrieve_me", responses={200: UserSerializer}, summary="The connected account")
    def get(self, request):
        return Response(UserSerializer.from_principal(request.auth))


class OpenApiView(SpectacularJSONAPIView):
    # application/json first: a client sending `Accept: application/json` must be served.
    renderer_classes = [OpenApiJsonRenderer2, OpenApiJsonRenderer]
    authentication_classes = []
    permission_classes = [AllowAny]
    http_method_names = ["get", "head", "options"]


@csrf_exempt
def route_not_found(request, *args, **kwargs):
    return render(request, "route_not_found", route_not_found_message())
