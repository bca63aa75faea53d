"""GET /v1/messages and GET /v1/messages/{id} (docs/design.md, Phase 3). Scope messages:read.

The message reads budget (docs/spec.md 8.1) replaces the reads budget on both, and each
number read spends its own (apps/messages/reading.py).
"""

import re
from datetime import UTC, datetime

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from apps.api_v1.public import Operation, PathId, ResourceApi, ResourceListApi, cursor_parameters, error_response
from apps.core.errors import ApiError
from apps.core.ids import is_id
from apps.core.phones import canonical_or_none

from . import reading, selectors
from .models import MAX_SENDER, MESSAGE_PREFIX
from .serializers import MessageSerializer

SCOPE = "messages:read"
TAG = ["Messages"]
MESSAGE_ID = PathId("message_id", MESSAGE_PREFIX, "The message's id, msg_...", pattern=selectors.MESSAGE_ID_PATTERN)
_SECONDS = re.compile(r"[0-9]{1,11}")
# E.164 or an alphanumeric sender id; a "+" sent unescaped in a query string arrives as a space.
_SENDER = re.compile(rf"[+ ]?[0-9A-Za-z][0-9A-Za-z .&'-]{{0,{MAX_SENDER - 1}}}")


def query_number(value: str) -> str:
    """A number as a query string may carry it: ``+44...`` sent unescaped arrives as `` 44...``."""
    return "+" + value[1:] if value[:1] == " " and value[1:].isdigit() else value


def parse_sender(value: str | None) -> str | None:
    if value is None:
        return None
    if not _SENDER.fullmatch(value):
        raise ApiError(
            "invalid_request", "from must be a phone number in E.164 form or an alphanumeric sender.", param="from"
        )
    value = query_number(value)
    # Senders are stored canonical when they are numbers (messages.services.message_build).
    return canonical_or_none(value) or value


def parse_time(request, name: str) -> datetime | None:
    value = request.query_params.get(name)
    if value is None:
        return None
    if not _SECONDS.fullmatch(value):
        raise ApiError("invalid_request", f"{name} must be a time in Unix seconds.", param=name)
    return datetime.fromtimestamp(int(value), tz=UTC)


def one_cursor(params) -> str | None:
    """The list's cursor when exactly one is sent and it is well formed; otherwise the page refuses
    it (or pages from the start) without a position read ahead."""
    after, before = params.get("starting_after"), params.get("ending_before")
    if (after is None) == (before is None):
        return None
    cursor = after if after is not None else before
    return cursor if is_id(cursor, MESSAGE_PREFIX) else None


HISTORY_OR_SHARING_REFUSED = error_response(
    "insufficient_scope: messages older than 60 minutes need messages:history (WWW-Authenticate names "
    'the scope: scope="messages:history"). number_not_opted_in (param number): the number\'s sharing switch '
    "is off; the message names the page."
)
NUMBER_PARAMETER = OpenApiParameter(
    "number",
    str,
    description=(
        "Only messages received by this number of yours: its id (num_...) or its E.164 form. Without it, every "
        "number whose messages you may read. A number not yours is 404 not_found; one whose sharing switch is off "
        "is 403 number_not_opted_in."
    ),
)
LIST_PARAMETERS = [
    NUMBER_PARAMETER,
    OpenApiParameter(
        "from",
        {"type": "string", "pattern": f"^{_SENDER.pattern}$"},
        description="Only messages from this sender (E.164, or an alphanumeric sender). Send + as %2B.",
    ),
    OpenApiParameter(
        "created[gte]",
        int,
        description=(
            "Unix seconds: only messages received at or after it. Older than 60 minutes ago needs messages:history."
        ),
    ),
    OpenApiParameter(
        "created[lt]",
        int,
        description="Unix seconds: only messages received before it. 60 minutes ago or earlier needs messages:history.",
    ),
    *cursor_parameters(prefix=MESSAGE_PREFIX, format="message-id", objects="messages"),
]


class MessageListApi(ResourceListApi):
    """Messages received on your numbers, newest first."""

    required_scope = SCOPE
    ratelimit_class = "messages"
    cursor_id_prefix = MESSAGE_PREFIX

    operations = {
        "get": Operation(
            "list_messages",
            TAG,
            "List messages received on your numbers, newest first",
            description=(
                "Messages of the credential's mode, on the numbers whose messages the account holder lets apps "
                "read. Without messages:history the list stops at 60 minutes ago. Messages are kept 30 days."
            ),
            parameters=LIST_PARAMETERS,
            responses={
                200: MessageSerializer(many=True),
                400: error_response("invalid_request: a filter is malformed (param names it)."),
                403: HISTORY_OR_SHARING_REFUSED,
                404: error_response("not_found (param number): the number is not one of yours in this mode."),
                429: error_response("rate_limited: the message reads budget, or 10 reads a minute of one number."),
            },
        )
    }

    def get(self, request):
        params = request.query_params
        sender = parse_sender(params.get("from"))
        gte, lt = parse_time(request, "created[gte]"), parse_time(request, "created[lt]")
        principal = request.auth
        since = reading.window_start(principal, timezone.now())
        number, positions = None, None
        if params.get("number") is not None:
            # The cursor's position is read in the number's statement: the page is then one statement more.
            cursor = one_cursor(params)
            number = reading.readable_number(
                principal=principal, value=query_number(params["number"]), cursor=cursor, since=since
            )
            positions = {cursor: selectors.cursor_position(number)} if cursor is not None else None
        if since is not None and ((gte is not None and gte < since) or (lt is not None and lt <= since)):
            raise reading.history_needed("Reading messages older than 60 minutes")
        listing = selectors.message_list(
            principal=principal,
            number_id=number.id if number else None,
            sender=sender,
            gte=gte,
            lt=lt,
            since=since,
            positions=positions,
        )
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(listing, request, view=self)
        # The named number is spent whatever the page holds; without one, each number the page read.
        reading.spend_number_budgets(request=request, number_ids={number.id} if number else {m.number_id for m in page})
        reading.record_read(principal=principal, messages=page)
        return paginator.get_paginated_response(MessageSerializer(page, many=True).data)


class MessageDetailApi(ResourceApi):
    """One message."""

    required_scope = SCOPE
    ratelimit_class = "messages"

    operations = {
        "get": Operation(
            "retrieve_message",
            TAG,
            "Read one message",
            parameters=[MESSAGE_ID.parameter],
            responses={
                200: MessageSerializer,
                403: HISTORY_OR_SHARING_REFUSED,
                429: error_response(
                    "rate_limited: the message reads budget, or 10 reads a minute of the message's number."
                ),
            },
        )
    }

    def get(self, request, message_id: str):
        principal = request.auth
        message = MESSAGE_ID.found(selectors.message_get(principal=principal, message_id=message_id))
        if not selectors.message_is_shared(message):
            raise reading.not_opted_in(message.number)
        since = reading.window_start(principal, timezone.now())
        if since is not None and message.created < since:
            raise reading.history_needed("Reading a message older than 60 minutes")
        reading.spend_number_budgets(request=request, number_ids={message.number_id})
        reading.record_read(principal=principal, messages=[message])
        return Response(MessageSerializer(message).data)
