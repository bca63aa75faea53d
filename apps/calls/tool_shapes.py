"""One call as the call tools give it (svc_get_call, svc_place_call, svc_end_call): the REST object, flat,
with the contact's name and money for display, so an assistant reads one shape of one thing."""

from apps.core.money import display

from . import spoken
from .models import Direction, Status
from .serializers import CallSerializer

NULLABLE_STRING = {"type": ["string", "null"]}
NULLABLE_INTEGER = {"type": ["integer", "null"]}

CALL_FIELDS = (
    "id",
    "direction",
    "status",
    "from",
    "to",
    "to_country",
    "contact",
    "contact_name",
    "created",
    "answered_at",
    "ended_at",
    "duration",
    "billed_duration",
    "per_minute_amount_decimal",
    "per_minute_display",
    "billing_increment",
    "amount",
    "amount_display",
    "currency",
    "transcript",
    "quote",
    "your_number",
    "caller_id",
    "record",
    "max_duration",
    "end_reason",
    "status_transitions",
)

CALL_PROPERTIES = {
    "id": {"type": "string"},
    "direction": {"type": "string", "enum": Direction.values},
    "status": {"type": "string", "enum": Status.values},
    "from": {"type": "string"},
    "to": {"type": "string"},
    "to_country": NULLABLE_STRING,
    "contact": {**NULLABLE_STRING, "description": "The contact's id (ct_...), or null."},
    "contact_name": NULLABLE_STRING,
    "created": {"type": "integer", "description": "Unix seconds (UTC)."},
    "answered_at": NULLABLE_INTEGER,
    "ended_at": NULLABLE_INTEGER,
    "duration": {"type": "integer", "description": "Talk seconds (so far, while in progress)."},
    "billed_duration": {"type": "integer"},
    "per_minute_amount_decimal": {"type": "string", "description": "Minor units a minute."},
    "per_minute_display": {"type": "string", "description": 'The rate for display, e.g. "$0.045".'},
    "billing_increment": {
        "type": "object",
        "properties": {"first_seconds": {"type": "integer"}, "next_seconds": {"type": "integer"}},
        "required": ["first_seconds", "next_seconds"],
        "additionalProperties": False,
    },
    "amount": {**NULLABLE_INTEGER, "description": "Minor units (so far, while in progress)."},
    "amount_display": NULLABLE_STRING,
    "currency": {"type": "string"},
    "transcript": {**NULLABLE_STRING, "description": "The transcript's id; see svc_get_call_summary."},
    "quote": {**NULLABLE_STRING, "description": "A callback call's quote (quo_...); null for others."},
    "your_number": {**NULLABLE_STRING, "description": "A callback call's first leg: the user's phone."},
    "caller_id": {**NULLABLE_STRING, "description": "A callback call's number shown to the callee."},
    "record": {"type": "boolean"},
    "max_duration": {**NULLABLE_INTEGER, "description": "Seconds after which a callback call ends."},
    "end_reason": {**NULLABLE_STRING, "description": "Why it ended (you_declined, callee_busy, ...)."},
    "status_transitions": {
        "type": "object",
        "properties": {name: NULLABLE_INTEGER for name in ("ringing_you_at", "ringing_at", "answered_at", "ended_at")},
        "required": ["ringing_you_at", "ringing_at", "answered_at", "ended_at"],
        "additionalProperties": False,
    },
}


def call_item(call, data: dict, names: bool) -> dict:
    """The REST object (``data``) with the contact's name and money for display."""
    amount = data["amount"]
    return {
        **data,
        "contact_name": getattr(call, "contact_name", None) if names else None,
        "amount_display": spoken.amount_display(amount, data["currency"]) if amount is not None else None,
    }


def call_result(call, *, names: bool, now) -> tuple[dict, dict]:
    """``(result, item)``: the call's fields as the tools return them (``CALL_FIELDS`` and whether
    contact names were hidden), and the fuller item the spoken sentence reads."""
    item = call_item(call, CallSerializer(call, context={"now": now}).data, names)
    item["per_minute_display"] = display(call.per_minute_amount_decimal, call.currency)
    return {**{k: item[k] for k in CALL_FIELDS}, "contact_names_hidden": not names}, item
