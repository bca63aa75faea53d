"""GET /v1/me: the account the credential acts for (docs/spec.md 2.1). Any scope suffices."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from apps.api_v1.public import ResourceApi, fast_get

from .serializers import UserSerializer


class MeApi(ResourceApi):
    """The connected account."""

    required_scope = None

    @extend_schema(operation_id="retrieve_me", responses={200: UserSerializer}, summary="The connected account")
    def get(self, request):
        return Response(UserSerializer.from_principal(request.auth))


# The hottest read of the API: plain bearer GETs skip DRF's request cycle (apps.api_v1.fastpath).
me_view = fast_get(MeApi, body=UserSerializer.from_principal)
