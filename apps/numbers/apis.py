"""GET /v1/numbers, GET /v1/numbers/{id} and GET /v1/caller_ids (docs/design.md, Phase 2). Scope numbers:read."""

from apps.api_v1.public import Operation, PathId, ResourceDetailApi, ResourceListApi, cursor_parameters

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
    serializer_class = NumberSerializer
    operation = Operation(
        "list_numbers",
        NUMBERS_TAGS,
        "List your virtual numbers, newest first",
        description="Every number the account rents or rented (status active or canceled), in the credential's mode.",
        parameters=cursor_parameters(prefix=NUMBER_ID_PREFIX, format="number-id", objects="numbers"),
    )

    def get_rows(self, request):
        return selectors.number_list(principal=request.auth)


class NumberDetailApi(ResourceDetailApi):
    """One virtual number."""

    required_scope = SCOPE
    path_id = NUMBER_ID
    serializer_class = NumberSerializer
    operation = Operation("retrieve_number", NUMBERS_TAGS, "Read one virtual number")

    def get_row(self, request, number_id: str):
        return selectors.number_get(principal=request.auth, number_id=number_id)


class CallerIdListApi(ResourceListApi):
    """The account's verified caller IDs, newest first."""

    required_scope = SCOPE
    cursor_id_prefix = CALLER_ID_PREFIX
    serializer_class = CallerIdSerializer
    operation = Operation(
        "list_caller_ids",
        NUMBERS_TAGS,
        "List your verified caller IDs, newest first",
        description=(
            "The numbers the account has verified it holds and may show when it calls; at most one is the default."
        ),
        parameters=cursor_parameters(prefix=CALLER_ID_PREFIX, format="caller-id-id", objects="caller IDs"),
    )

    def get_rows(self, request):
        return selectors.caller_id_list(principal=request.auth)
