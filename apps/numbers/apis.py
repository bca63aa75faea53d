"""GET /v1/numbers, GET /v1/numbers/{id} and GET /v1/caller_ids (docs/design.md, Phase 2). Scope numbers:read."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from apps.api_v1.public import PathId, ResourceApi, ResourceListApi, cursor_parameters

from . import selectors
from .models import CALLER_ID_PREFIX, NUMBER_ID_PREFIX
from .serializers import CallerIdSerializer, NumberSerializer

SCOPE = "numbers:read"
NUMBERS_TAGS = ["Numbers"]
NUMBER_ID = PathId("number_id", NUMBER_ID_PREFIX, "The number's id, num_...")


class NumberListApi(ResourceListApi):
    """The account's virtual numbers, newest first."""

    required_scope = SCOPE
    cursor_id_prefix = NUMBER_ID_PREFIX

    @extend_schema(
        operation_id="list_numbers",
        tags=NUMBERS_TAGS,
        summary="List your virtual numbers, newest first",
        description="Every number the account rents or rented (status active or canceled), in the credential's mode.",
        parameters=cursor_parameters(prefix=NUMBER_ID_PREFIX, format="number-id", objects="numbers"),
        responses={200: NumberSerializer(many=True)},
    )
    def get(self, request):
        return self.list(selectors.number_list(principal=request.auth), NumberSerializer)


class NumberDetailApi(ResourceApi):
    """One virtual number."""

    required_scope = SCOPE

    @extend_schema(
        operation_id="retrieve_number",
        tags=NUMBERS_TAGS,
        summary="Read one virtual number",
        parameters=[NUMBER_ID.parameter],
        responses={200: NumberSerializer},
    )
    def get(self, request, number_id: str):
        number = selectors.number_get(principal=request.auth, number_id=number_id)
        return Response(NumberSerializer(NUMBER_ID.found(number)).data)


class CallerIdListApi(ResourceListApi):
    """The account's verified caller IDs, newest first."""

    required_scope = SCOPE
    cursor_id_prefix = CALLER_ID_PREFIX

    @extend_schema(
        operation_id="list_caller_ids",
        tags=NUMBERS_TAGS,
        summary="List your verified caller IDs, newest first",
        description=(
            "The numbers the account has verified it holds and may show when it calls; at most one is the default."
        ),
        parameters=cursor_parameters(prefix=CALLER_ID_PREFIX, format="caller-id-id", objects="caller IDs"),
        responses={200: CallerIdSerializer(many=True)},
    )
    def get(self, request):
        return self.list(selectors.caller_id_list(principal=request.auth), CallerIdSerializer)
