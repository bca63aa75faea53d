"""GET /v1/calls and GET /v1/calls/{id} (docs/design.md, Phase 2): calls:read; expansions need their own scope."""

from django.conf import settings
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from apps.api_v1.public import (
    RESOURCE_PATH,
    Operation,
    PathId,
    ResourceApi,
    ResourceListApi,
    cursor_parameters,
    error_response,
)
from apps.core.errors import ApiError
from apps.credentials.scopes import require

from . import selectors
from .models import CALL_PREFIX, Direction, Status
from .serializers import EXPANSIONS, CallSerializer
from .services import call_refresh
from .transcripts import transcript_refresh

TAG = ["Calls"]


def summaries_off_message() -> str:
    return (
        "Call summaries are not shared: the account's call summaries setting is off. The account owner can turn "
        f'on "{selectors.SHARING_SETTING}" at {settings.APP_URL}/settings/sharing.'
    )


def _enum_param(request, name: str, choices: list[str]) -> str | None:
    value = request.query_params.get(name)
    if value is not None and value not in choices:
        raise ApiError("invalid_request", f"{name} must be one of: {', '.join(choices)}.", param=name)
    return value


def _expand(request) -> frozenset[str]:
    """``expand[]`` values (``expand`` is read too), checked against what a call can expand, and their scopes."""
    values = [*request.query_params.getlist("expand[]"), *request.query_params.getlist("expand")]
    for value in values:
        if value not in EXPANSIONS:
            raise ApiError(
                "invalid_request",
                f"A call cannot expand {value[:40]!r}. Expandable: {', '.join(EXPANSIONS)}.",
                param="expand",
            )
    expand = frozenset(values)
    principal = request.auth
    # The scope challenge of every other refusal, with the param that asked for it.
    for expansion, scope in (("transcript", "transcripts:read"), ("contact", "contacts:read")):
        if expansion in expand:
            require(principal, scope, resource_path=RESOURCE_PATH, param="expand", what=f"expand[]={expansion}")
    return expand


def _require_summaries_shared(request, expand: frozenset[str]) -> None:
    if "transcript" in expand and not selectors.call_summaries_shared(principal=request.auth):
        raise ApiError("forbidden", summaries_off_message(), param="expand")


EXPAND_PARAMETER = OpenApiParameter(
    "expand[]",
    {"type": "array", "items": {"type": "string", "enum": list(EXPANSIONS)}},
    style="form",
    explode=True,
    description=(
        "Objects to include in place of their ids. transcript needs the transcripts:read scope and the "
        "account's call summaries setting on (off: 403 forbidden); contact needs contacts:read."
    ),
)
LIST_PARAMETERS = [
    OpenApiParameter("direction", str, enum=Direction.values, description="Only calls of this direction."),
    OpenApiParameter("status", str, enum=Status.values, description="Only calls in this status."),
    EXPAND_PARAMETER,
    *cursor_parameters(prefix="call_", format="call-id", objects="calls"),
]
BAD_REQUEST = error_response(
    "invalid_request: direction, status or expand[] is not one of its values (param names it)."
)
EXPANSION_REFUSED = error_response(
    "insufficient_scope for an expansion: the scope it needs (transcripts:read, contacts:read; param expand), "
    "with a WWW-Authenticate challenge naming it. forbidden: expand[]=transcript while the account's call "
    "summaries setting is off (param expand)."
)
CALL_ID = PathId("call_id", CALL_PREFIX, "The call's id, prefix call_.")


class CallListApi(ResourceListApi):
    """Your calls, newest first."""

    required_scope = "calls:read"
    cursor_id_prefix = CALL_PREFIX
    operations = {
        "get": Operation(
            "list_calls",
            TAG,
            "List your calls, newest first",
            description=(
                "Calls of the credential's mode (a test key sees test calls only). Without contacts:read, calls "
                "still list; the contact stays an id."
            ),
            parameters=LIST_PARAMETERS,
            responses={200: CallSerializer(many=True), 400: BAD_REQUEST, 403: EXPANSION_REFUSED},
        )
    }

    def get(self, request):
        direction = _enum_param(request, "direction", Direction.values)
        status = _enum_param(request, "status", Status.values)
        expand = _expand(request)
        _require_summaries_shared(request, expand)
        calls = selectors.call_list(
            principal=request.auth,
            direction=direction,
            status=status,
            transcripts="transcript" in expand,
        )
        context = {"now": timezone.now(), "expand": expand, "principal": request.auth}
        return self.list(calls, CallSerializer, context=context)


class CallDetailApi(ResourceApi):
    """One of your calls; while it is live, its status and cost so far."""

    required_scope = "calls:read"
    operations = {
        "get": Operation(
            "retrieve_call",
            TAG,
            "Read one call",
            parameters=[CALL_ID.parameter, EXPAND_PARAMETER],
            responses={200: CallSerializer, 400: BAD_REQUEST, 403: EXPANSION_REFUSED},
        )
    }

    def get(self, request, call_id: str):
        expand = _expand(request)
        if not selectors.is_call_id(call_id):
            raise ApiError("not_found", "No such call.", param="call_id")
        _require_summaries_shared(request, expand)
        call = CALL_ID.found(
            selectors.call_get(principal=request.auth, call_id=call_id, transcripts="transcript" in expand)
        )
        # A live callback, or an expanded transcript being prepared: the carrier's events already due
        # are applied first (the simulator's without a worker), then the call is read again.
        refreshed = call_refresh(call)
        if "transcript" in expand and transcript_refresh(selectors.call_transcript(call)):
            refreshed = True
        if refreshed:
            call = selectors.call_get(principal=request.auth, call_id=call_id, transcripts="transcript" in expand)
        context = {"now": timezone.now(), "expand": expand, "principal": request.auth}
        return Response(CallSerializer(call, context=context).data)
