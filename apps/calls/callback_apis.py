"""POST /v1/quotes, POST /v1/calls, POST /v1/calls/{id}/end (docs/design.md, Phase 3): scope calls:place.

Views stay thin: the services refuse in docs/design.md's order, each refusal an ApiError with its
code and param; the answers are the serializers' objects, as the MCP tools give them.
"""

from django.utils import timezone
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from apps.api_v1.public import IdempotentMixin, Operation, ResourceActionApi, error_response
from apps.core.errors import ApiError

from . import services
from .apis import CALL_ID, CallListApi
from .serializers import CallSerializer, QuoteSerializer

TAG = ["Calls"]
SCOPE = "calls:place"


def _body(request) -> dict:
    data = request.data
    if not isinstance(data, dict):
        raise ApiError("invalid_body", "The request body must be a JSON object.")
    return data


class PlaceApi(ResourceActionApi):
    """A calls:place write."""

    required_scope = SCOPE


class QuoteCreateApi(PlaceApi):
    """Price a callback call before placing it."""

    ratelimit_class = "quotes"
    operation = Operation(
        "create_quote",
        TAG,
        "Quote a callback call: its price, who rings first, what the callee sees",
        description=(
            "A quote spends nothing and lives 10 minutes; place it with POST /v1/calls. Refusals in this order: "
            "a contact with several numbers (400, param to), no rate (404), a destination not called (422), "
            "the available balance (402), a spend limit (403)."
        ),
        request=inline_serializer(
            "QuoteCreate",
            {
                "to": serializers.CharField(help_text="E.164 number, or a contact id (ct_...) with one number."),
                "caller_id": serializers.CharField(
                    required=False, help_text="A caller ID id (cid_...); default: your default caller ID."
                ),
                "record": serializers.BooleanField(required=False, default=False),
            },
        ),
        responses={
            201: QuoteSerializer,
            400: error_response("invalid_request: to or caller_id or record is not valid (param names it)."),
            402: error_response(
                "insufficient_credits: the available balance does not buy the first billing increment."
            ),
            403: error_response("spend_limit_exceeded: a daily cap or velocity limit; the message says when."),
            404: error_response("not_found: no rate for the number (param to), no such contact or caller ID."),
            422: error_response("destination_not_allowed: premium-rate, shared-cost, satellite or blocked (param to)."),
        },
    )

    def post(self, request):
        data = _body(request)
        quote = services.quote_create(
            principal=request.auth, to=data.get("to"), caller_id=data.get("caller_id"), record=data.get("record", False)
        )
        return Response(QuoteSerializer(quote, context={"now": quote.created}).data, status=status.HTTP_201_CREATED)


class CallPlaceApi(IdempotentMixin, CallListApi):
    """GET lists calls (calls:read, the reads budget); POST places a quote (calls:place, the calls budget)."""

    http_method_names = ["get", "post", "head", "options"]
    idempotency_key_required = True
    operations = {
        "post": Operation(
            "create_call",
            TAG,
            "Place a quote as a callback call: your phone rings first",
            description=(
                "Idempotency-Key is required. 201 with the call in ringing_you and a hold of the quote's max_amount "
                "on the balance. Refusals in this order: quote not found (404, param quote), expired (410 "
                "quote_expired), placed already (409 quote_used), a callback of this account already live (409 "
                "call_in_progress), the available balance (402) and the spend limits (403) checked again. On a real "
                "carrier, its refusals are errors that write nothing (the quote stays open): your number or the caller "
                "ID refused (400, param quote), your phone's country not allowed (422), the carrier busy or out of "
                "service (503 with Retry-After)."
            ),
            request=inline_serializer(
                "CallCreate", {"quote": serializers.CharField(help_text="The quote's id, quo_...")}
            ),
            responses={
                201: CallSerializer,
                400: error_response(
                    "idempotency_key_required; invalid_body; invalid_request (param quote): the carrier will not call "
                    "your number or show the caller ID."
                ),
                402: error_response("insufficient_credits."),
                403: error_response(
                    "spend_limit_exceeded (a cap, or the app's daily allowance). user_confirmation_required: "
                    "the app's connection asks first, or read messages in the last hour; confirm_url is the page."
                ),
                404: error_response("not_found: no such quote in this account and mode (param quote)."),
                409: error_response("quote_used (names the call); call_in_progress (names it)."),
                410: error_response("quote_expired (param quote)."),
                422: error_response(
                    "destination_not_allowed (param quote): the carrier may not call your phone's country"
                ),
                503: error_response(
                    "service_unavailable: the carrier is busy or not in service; retry after Retry-After."
                ),
            },
        )
    }

    @property
    def required_scope(self):
        return SCOPE if self._posting() else CallListApi.required_scope

    @property
    def ratelimit_class(self):
        return "calls" if self._posting() else "reads"

    def _posting(self) -> bool:
        request = getattr(self, "request", None)
        return request is not None and request.method == "POST"

    def post(self, request):
        answer = {}

        def stored_answer(call):
            # The answer is known before the call is written: it is stored with the call's writes.
            answer["data"] = CallSerializer(call, context={"now": call.created}).data
            return self.idempotency_outcome_statements(status.HTTP_201_CREATED, answer["data"])

        call = services.call_place(principal=request.auth, quote_id=_body(request).get("quote"), also=stored_answer)
        data = answer.get("data") or CallSerializer(call, context={"now": call.created}).data
        return Response(data, status=status.HTTP_201_CREATED)


class CallEndApi(PlaceApi):
    """End a live call of the account."""

    # Not the placement budget: ending a call must stay possible when placing is not. A read's.
    ratelimit_class = "reads"

    operation = Operation(
        "end_call",
        TAG,
        "End a call: before the answer it is canceled, in progress completed",
        description="No body. A call that has already ended answers 200 unchanged.",
        request=None,
        parameters=[CALL_ID.parameter],
        responses={200: CallSerializer},
    )

    def post(self, request, call_id: str):
        call = CALL_ID.found(services.call_end(principal=request.auth, call_id=call_id))
        return Response(CallSerializer(call, context={"now": timezone.now()}).data)
