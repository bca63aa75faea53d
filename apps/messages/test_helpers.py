"""POST /v1/test_helpers/messages: the simulator's way to deliver an SMS to a test-mode number.

Like Stripe's test helpers: a test-mode key only (a live credential is 403 ``forbidden``),
and the message goes through the carrier boundary, as a carrier's does (``services.message_arrive``).
"""

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from apps.api_v1.public import Operation, ResourceActionApi, error_response
from apps.core.errors import ApiError

from . import selectors, services
from .apis import parse_sender, query_number
from .models import MAX_BODY, MAX_SENDER
from .serializers import MessageSerializer

BODY = inline_serializer(
    "TestMessageRequest",
    {
        "number": serializers.CharField(help_text="Your test-mode number that receives it: num_... or E.164."),
        "from": serializers.CharField(help_text="The sender: E.164, or an alphanumeric sender id."),
        "body": serializers.CharField(max_length=MAX_BODY, help_text=f"The text, 1 to {MAX_BODY} characters."),
    },
)


def _text(data: dict, name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not value:
        raise ApiError("invalid_request", f"{name} is required: a string.", param=name)
    return value


class TestMessageApi(ResourceActionApi):
    """Deliver a simulated SMS to one of your test-mode numbers."""

    required_scope = None  # any test-mode key: the mode is the guard
    ratelimit_class = "reads"
    operation = Operation(
        "test_helpers_deliver_message",
        ["Test helpers"],
        "Deliver a simulated SMS to a test-mode number",
        description=(
            "Test mode only: the message arrives on your test-mode number as a carrier would deliver it, and reads "
            "as any other message (the number's sharing switch still applies)."
        ),
        request=BODY,
        responses={
            201: MessageSerializer,
            400: error_response(
                "invalid_request: number, from or body missing or malformed, or the number takes no SMS."
            ),
            403: error_response("forbidden: a live-mode credential."),
            404: error_response("not_found (param number): not one of your test numbers."),
        },
    )

    def post(self, request):
        principal = request.auth
        if principal.livemode:
            raise ApiError("forbidden", "Test helpers take a test-mode key (sk_test_...), never a live credential.")
        data = request.data if isinstance(request.data, dict) else {}
        number_value, sender_value, body = _text(data, "number"), _text(data, "from"), _text(data, "body")
        if len(body) > MAX_BODY:
            raise ApiError("invalid_request", f"body is at most {MAX_BODY} characters.", param="body")
        sender = parse_sender(sender_value)
        # The filter's pattern takes a "+" before 16 characters (it finds nothing); a stored sender has 16 at most.
        if len(sender) > MAX_SENDER:
            raise ApiError("invalid_request", f"from is at most {MAX_SENDER} characters, the + included.", param="from")
        number = selectors.number_find(principal=principal, value=query_number(number_value))
        if number is None:
            raise ApiError("not_found", "No such number among your test-mode numbers.", param="number")
        if not number.sms:
            raise ApiError("invalid_request", f"{number.number} does not receive SMS.", param="number")
        message = services.message_arrive(number=number, sender=sender, body=body)
        return Response(MessageSerializer(message).data, status=201)
