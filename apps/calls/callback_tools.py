"""svc_quote_call, svc_place_call, svc_end_call (docs/design.md, Phase 3): the REST operations' services and objects.

The quote's id is the placement's idempotency key: a quote is placed at most once, so a
retried svc_place_call can never place a second call; it gets an isError result naming
the call the first attempt placed.
"""

from django.db import transaction
from django.utils import timezone

from apps.api_v1.public import has_scope
from apps.core.errors import ApiError
from apps.core.ids import id_pattern
from apps.core.money import display
from apps.mcp_bridge.public import ToolFailure, ToolSpec, failure_for, register

from . import selectors, services, spoken
from .models import QUOTE_PREFIX
from .serializers import QuoteSerializer
from .tool_shapes import CALL_FIELDS, CALL_PROPERTIES, call_result

SCOPE = "calls:place"
STRING = {"type": "string"}
NULLABLE_STRING = {"type": ["string", "null"]}
INTEGER = {"type": "integer"}


def _failure(error: ApiError) -> ToolFailure:
    return failure_for(error)


def _duration(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes = rest // 60
    if hours and minutes:
        return f"{hours} h {minutes} min"
    if hours:
        return f"{hours} h"
    return f"{minutes} min" if minutes else f"{seconds} s"


def quote_spoken(quote: dict, contact_name: str | None) -> str:
    callee = spoken.one_line(contact_name) if contact_name else None
    who = f"{callee} ({spoken.number(quote['to'])})" if callee else spoken.number(quote["to"])
    sees = callee or "they"
    return (
        f"Calling {who} costs {quote['price_display']} a minute; your phone {spoken.number(quote['your_number'])} "
        f"will ring first and {sees} will see {spoken.number(quote['caller_id'])}. The call can last up to "
        f"{quote['max_duration_display']}.{_left_today(quote)} Say yes to place it; the quote is valid 10 minutes."
    )


def _left_today(quote: dict) -> str:
    left = quote.get("spend_left_today")
    return "" if left is None else f" {display(left, quote['currency'])} of today's spending allowance is left."


def quote_call(*, principal, arguments) -> dict:
    try:
        quote = services.quote_create(principal=principal, to=arguments["to"], record=arguments.get("record", False))
    except ApiError as error:
        raise _failure(error) from None
    data = QuoteSerializer(quote, context={"now": quote.created}).data
    data["price_display"] = display(quote.per_minute_amount_decimal, quote.currency)
    data["max_amount_display"] = display(quote.max_amount, quote.currency)
    data["max_duration_display"] = _duration(quote.max_duration)
    data["contact_name"] = getattr(quote, "contact_name", None)
    data["spoken"] = quote_spoken(data, data["contact_name"])
    return data


PLACED_SPOKEN = "Your phone is ringing now; answer and press 1 to connect to {to}."


def place_call(*, principal, arguments) -> dict:
    try:
        # Its own transaction (a savepoint inside another): a refusal leaves nothing behind.
        with transaction.atomic():
            call = services.call_place(principal=principal, quote_id=arguments["quote_id"])
    except ApiError as error:
        raise _failure(error) from None
    result = _flat(principal, call, now=call.created)
    if call.is_live:
        line = PLACED_SPOKEN.format(to=spoken.number(call.to_number))
    else:
        line = f"The call could not be placed: it {spoken.OUTCOMES.get(call.status, call.status)}."
    return {**result, "spoken": line}


def end_call(*, principal, arguments) -> dict:
    with transaction.atomic():
        call = services.call_end(principal=principal, call_id=arguments["call_id"])
    if call is None:
        raise ToolFailure(f"There is no call {arguments['call_id']} in this account.")
    result = _flat(principal, call, now=timezone.now())
    if not call.ended_by_this_request:
        line = f"That call had already ended ({call.status})."
    elif result["amount"]:
        line = f"The call is ended ({call.status}); it cost {display(result['amount'], result['currency'])}."
    else:
        line = f"The call is ended ({call.status}); it cost nothing."
    return {**result, "spoken": line}


def _flat(principal, call, *, now) -> dict:
    """The call as svc_get_call gives it (the contact's name read only when there is a contact to name)."""
    names = has_scope(principal, "contacts:read")
    if names and call.contact_id:
        named = selectors.call_get(principal=principal, call_id=call.id, contact_names=True)
        call.contact_name = getattr(named, "contact_name", None)
    return call_result(call, names=names, now=now)[0]


# The call as svc_get_call gives it, and what this tool says of it.
CALL_OUTPUT = {
    "type": "object",
    "properties": {**CALL_PROPERTIES, "contact_names_hidden": {"type": "boolean"}, "spoken": STRING},
    "required": [*CALL_FIELDS, "contact_names_hidden", "spoken"],
    "additionalProperties": False,
}

svc_quote_call = register(
    ToolSpec(
        name="svc_quote_call",
        title="Quote a call",
        description=(
            "Prices a callback call to a number (E.164) or a contact (ct_ id): the price a minute, the user's own "
            "phone that rings first, the number the callee sees, and how long the call may last. It places "
            "nothing. Tell the user the price and destination and ask them to confirm before svc_place_call."
        ),
        scope=SCOPE,
        budget="quotes",
        handler=quote_call,
        read_only=False,
        destructive=False,
        idempotent=False,
        open_world=False,
        input_schema={
            "type": "object",
            "properties": {
                "to": {
                    "type": "string",
                    "maxLength": 40,
                    "description": "The number to call in E.164 format (+4915112345678), or a contact id (ct_...).",
                },
                "record": {
                    "type": "boolean",
                    "description": "Record the call (needed for a transcript). Default false.",
                },
            },
            "required": ["to"],
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {
                "id": {"type": "string", "pattern": f"^{QUOTE_PREFIX}"},
                "to": STRING,
                "your_number": STRING,
                "caller_id": STRING,
                "price_display": STRING,
                "max_duration": INTEGER,
                "max_duration_display": STRING,
                "max_amount": INTEGER,
                "max_amount_display": STRING,
                "expires_at": INTEGER,
                "contact_name": NULLABLE_STRING,
                "spoken": STRING,
            },
            "required": ["id", "to", "your_number", "caller_id", "price_display", "expires_at", "spoken"],
        },
    )
)

svc_place_call = register(
    ToolSpec(
        name="svc_place_call",
        title="Place a quoted call",
        description=(
            "Places the call of a quote from svc_quote_call, only after the user agreed to its price and "
            "destination. The user's own phone rings first; nothing connects until they answer and press 1. "
            "The quote id is the idempotency key: a quote is placed once, and a retry never places a second call."
        ),
        scope=SCOPE,
        budget="calls",
        handler=place_call,
        read_only=False,
        destructive=False,
        idempotent=False,
        open_world=True,
        input_schema={
            "type": "object",
            "properties": {
                "quote_id": {
                    "type": "string",
                    "pattern": id_pattern(QUOTE_PREFIX),
                    "description": "The id of the quote the user agreed to (quo_...).",
                }
            },
            "required": ["quote_id"],
            "additionalProperties": False,
        },
        output_schema=CALL_OUTPUT,
    )
)

svc_end_call = register(
    ToolSpec(
        name="svc_end_call",
        title="End a call",
        description=(
            "Ends a live call: before the callee answers it is canceled, once talking it is completed and the "
            "answered time is charged. Ending a call that already ended changes nothing."
        ),
        scope=SCOPE,
        handler=end_call,
        read_only=False,
        destructive=True,
        idempotent=True,
        open_world=True,
        input_schema={
            "type": "object",
            "properties": {
                "call_id": {
                    "type": "string",
                    "pattern": selectors.CALL_ID_PATTERN,
                    "maxLength": 69,
                    "description": "The call's id (call_...), as svc_place_call returned it.",
                }
            },
            "required": ["call_id"],
            "additionalProperties": False,
        },
        output_schema=CALL_OUTPUT,
    )
)
