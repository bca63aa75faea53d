"""GET /v1/me: the account the credential acts for (docs/spec.md 2.1). Any scope suffices."""

from rest_framework.response import Response

from apps.api_v1.public import Operation, ResourceApi, fast_get

from .serializers import UserSerializer


class MeApi(ResourceApi):
    """The connected account."""

    required_scope = None
    # Tagged by its path, as the document has always tagged it.
    operations = {"get": Operation("retrieve_me", None, "The connected account", responses={200: UserSerializer})}

    def get(self, request):
        return Response(UserSerializer.from_principal(request.auth))


# The hottest read of the API: plain bearer GETs skip DRF's request cycle (apps.api_v1.fastpath).
me_view = fast_get(MeApi, body=UserSerializer.from_principal)
