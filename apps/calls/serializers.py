"""The call and transcript objects (docs/design.md, Phase 2), shared by the REST views and the MCP tools.

The serializers document the objects for the OpenAPI document;
``to_representation`` builds each one directly, with one clock reading per
answer (``context["now"]``) so that every live call of a page is costed at
the same instant.
"""

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.api_v1.public import expand_objects, expansion_available
from apps.core.money import decimal_string
from apps.core.timefmt import unix_seconds

from .models import Call, Direction, EndReason, Quote, Status, Transcript
from .pricing import usage_of
from .selectors import call_transcript, call_transcript_id

EXPANSIONS = ("contact", "transcript")

TRANSCRIPT_OBJECT_SCHEMA = {
    "type": "object",
    "description": "The call's transcript and AI summary (expand[]=transcript).",
    "required": [
        "id",
        "object",
        "call",
        "summary",
        "action_items",
        "reference_numbers",
        "language",
        "status",
        "failure_reason",
        "amount",
        "currency",
        "completed_at",
        "created",
        "livemode",
    ],
    "properties": {
        "id": {"type": "string", "pattern": "^trs_"},
        "object": {"type": "string", "enum": ["transcript"]},
        "call": {"type": "string", "pattern": "^call_"},
        "summary": {"type": "string"},
        "action_items": {"type": "array", "items": {"type": "string"}},
        "reference_numbers": {"type": "array", "items": {"type": "string"}},
        "language": {
            "type": "string",
            "description": "BCP 47 language tag of the call, e.g. en; empty while a requested one is prepared.",
        },
        "status": {
            "type": "string",
            "enum": ["queued", "processing", "completed", "failed"],
            "description": "A requested transcript is queued, then processing, then completed or failed.",
        },
        "failure_reason": {
            "type": ["string", "null"],
            "enum": ["audio_unavailable", "too_short", "provider_error", None],
            "description": "Why it failed; null unless failed.",
        },
        "amount": {
            "type": ["integer", "null"],
            "description": "Minor units charged at completion (0 when failed; null before completion and for "
            "transcripts made without a request).",
        },
        "currency": {"type": ["string", "null"], "description": "Lowercase ISO 4217; null when amount is."},
        "completed_at": {"type": ["integer", "null"], "description": "Unix seconds; null until it is done."},
        "created": {"type": "integer", "description": "Unix seconds."},
        "livemode": {"type": "boolean"},
    },
}

# The contact as GET /v1/contacts/{id} writes it (the contacts app's serializer lends it).
CONTACT_OBJECT_SCHEMA = {"$ref": "#/components/schemas/Contact"}

DELETED_CONTACT_SCHEMA = {
    "type": "object",
    "description": "A contact that no longer exists (expand[]=contact).",
    "required": ["id", "object", "deleted"],
    "properties": {
        "id": {"type": "string", "pattern": "^ct_"},
        "object": {"type": "string", "enum": ["contact"]},
        "deleted": {"type": "boolean", "enum": [True]},
    },
}


@extend_schema_field(
    {
        "anyOf": [
            {"type": "string", "pattern": "^ct_", "description": "The contact's id."},
            CONTACT_OBJECT_SCHEMA,
            DELETED_CONTACT_SCHEMA,
            {"type": "null"},
        ],
        "description": "The contact the call was matched to: its id, or the contact when expanded; null if none.",
    }
)
class ContactReferenceField(serializers.Field):
    pass


@extend_schema_field(
    {
        "anyOf": [
            {"type": "string", "pattern": "^trs_", "description": "The transcript's id."},
            TRANSCRIPT_OBJECT_SCHEMA,
            {"type": "null"},
        ],
        "description": "The call's transcript: its id, or the transcript when expanded; null if none.",
    }
)
class TranscriptReferenceField(serializers.Field):
    pass


class CallBillingIncrementSerializer(serializers.Serializer):
    first_seconds = serializers.IntegerField(help_text="Seconds billed for any answered call, however short.")
    next_seconds = serializers.IntegerField(help_text="Each started block after the first is billed whole.")


def transcript_object(transcript: Transcript) -> dict:
    return {
        "id": transcript.id,
        "object": "transcript",
        "call": transcript.call_id,
        "summary": transcript.summary,
        "action_items": list(transcript.action_items),
        "reference_numbers": list(transcript.reference_numbers),
        "language": transcript.language,
        "status": transcript.status,
        "failure_reason": transcript.failure_reason or None,
        "amount": transcript.amount,
        "currency": (transcript.currency or None) if transcript.amount is not None else None,
        # A transcript made without a request (phase 2's) was complete when it was made.
        "completed_at": unix_seconds(
            transcript.completed_at or (transcript.created if transcript.status == "completed" else None)
        ),
        "created": unix_seconds(transcript.created),
        "livemode": transcript.livemode,
    }


def contact_object(call: Call, expanded: dict[str, dict]) -> dict | None:
    """The expanded contact: the whole object from ``expanded`` (apps.api_v1.expansions), or a stub
    when it is gone (or was never the caller's: a stale or foreign id reads as gone)."""
    if not call.contact_id:
        return None
    found = expanded.get(call.contact_id)
    if found is None:
        return {"id": call.contact_id, "object": "contact", "deleted": True}
    return found


def expanded_contacts(calls, context: dict) -> dict[str, dict]:
    """The contacts of ``calls`` for ``expand[]=contact``, read once for a page and kept in the context."""
    if "contacts" not in context:
        if not expansion_available("contact"):
            return {}
        context["contacts"] = expand_objects(
            "contact", principal=context["principal"], ids=[call.contact_id for call in calls]
        )
    return context["contacts"]


class CallListSerializer(serializers.ListSerializer):
    def to_representation(self, data):
        calls = list(data)
        if "contact" in self.context.get("expand", ()):
            expanded_contacts(calls, self.context)
        return super().to_representation(calls)


class StatusTransitionsSerializer(serializers.Serializer):
    ringing_you_at = serializers.IntegerField(allow_null=True, help_text="Unix seconds: your phone started ringing.")
    ringing_at = serializers.IntegerField(allow_null=True, help_text="Unix seconds: you pressed 1, the callee rings.")
    answered_at = serializers.IntegerField(allow_null=True, help_text="Unix seconds: the callee answered.")
    ended_at = serializers.IntegerField(allow_null=True, help_text="Unix seconds.")


class CallSerializer(serializers.Serializer):
    """A call, inbound or outbound, live or ended; its amount follows the billing rule."""

    # context: "now" (one clock reading for the whole answer), "expand" (a set of EXPANSIONS),
    # "principal" (whose contacts an expansion reads).

    class Meta:
        list_serializer_class = CallListSerializer

    id = serializers.CharField(help_text="Call id, prefix call_.")
    object = serializers.ChoiceField(choices=["call"])
    direction = serializers.ChoiceField(choices=Direction.values)
    status = serializers.ChoiceField(
        choices=Status.values,
        help_text="ringing_you: your own phone is ringing first (callback calls). Tolerate new values.",
    )
    # "from" is a Python keyword: declared through the class namespace.
    locals()["from"] = serializers.CharField(help_text="Calling number, E.164.")
    to = serializers.CharField(help_text="Called number, E.164.")
    to_country = serializers.CharField(allow_null=True, help_text="ISO 3166 alpha-2 of the called number.")
    contact = ContactReferenceField()
    created = serializers.IntegerField(help_text="Unix seconds.")
    answered_at = serializers.IntegerField(allow_null=True, help_text="Unix seconds; null until answered.")
    ended_at = serializers.IntegerField(allow_null=True, help_text="Unix seconds; null while live.")
    duration = serializers.IntegerField(help_text="Talk seconds (so far, while in progress); 0 if never answered.")
    billed_duration = serializers.IntegerField(
        help_text="0 when duration is 0; else first_seconds plus next_seconds for each started block after that."
    )
    per_minute_amount_decimal = serializers.CharField(
        help_text='The rate applied, minor units a minute as a decimal string ("4.5" is 4.5 cents).'
    )
    billing_increment = CallBillingIncrementSerializer()
    amount = serializers.IntegerField(
        allow_null=True,
        help_text=(
            "Minor units: billed_duration / 60 x the rate, rounded up once per call. The cost so far while "
            "in progress; null if never answered."
        ),
    )
    currency = serializers.CharField(help_text="Lowercase ISO 4217.")
    transcript = TranscriptReferenceField()
    quote = serializers.CharField(
        allow_null=True, help_text="The quote a callback call was placed from; null for others."
    )
    your_number = serializers.CharField(allow_null=True, help_text="Callback calls: your phone, which rings first.")
    caller_id = serializers.CharField(allow_null=True, help_text="Callback calls: the number the callee sees.")
    record = serializers.BooleanField(help_text="Whether the call is recorded (a transcript needs it).")
    max_duration = serializers.IntegerField(
        allow_null=True, help_text="Callback calls: seconds after the answer at which the call ends (time_limit)."
    )
    end_reason = serializers.ChoiceField(
        choices=[c for c, _ in EndReason.choices], allow_null=True, help_text="Why it ended; null while live."
    )
    status_transitions = StatusTransitionsSerializer()
    livemode = serializers.BooleanField()

    def to_representation(self, call: Call) -> dict:
        context = self.context
        expand = context.get("expand", ())
        usage = usage_of(call, context.get("now") or timezone.now())
        if "transcript" in expand:
            transcript = call_transcript(call)
            transcript_value = transcript_object(transcript) if transcript is not None else None
        else:
            transcript_value = call_transcript_id(call)
        return {
            "id": call.id,
            "object": "call",
            "direction": call.direction,
            "status": call.status,
            "from": call.from_number,
            "to": call.to_number,
            "to_country": call.to_country or None,
            "contact": (
                contact_object(call, expanded_contacts([call], context))
                if "contact" in expand
                else (call.contact_id or None)
            ),
            "created": unix_seconds(call.created),
            "answered_at": unix_seconds(call.answered_at),
            "ended_at": unix_seconds(call.ended_at),
            "duration": usage.duration,
            "billed_duration": usage.billed_duration,
            "per_minute_amount_decimal": decimal_string(call.per_minute_amount_decimal),
            "billing_increment": {"first_seconds": call.first_seconds, "next_seconds": call.next_seconds},
            "amount": usage.amount,
            "currency": call.currency,
            "transcript": transcript_value,
            "quote": call.quote_id or None,
            "your_number": call.your_number or None,
            "caller_id": call.caller_id or None,
            "record": call.record,
            "max_duration": call.max_duration,
            "end_reason": call.end_reason or None,
            "status_transitions": {
                "ringing_you_at": unix_seconds(call.ringing_you_at),
                "ringing_at": unix_seconds(call.ringing_at),
                "answered_at": unix_seconds(call.answered_at),
                "ended_at": unix_seconds(call.ended_at),
            },
            "livemode": call.livemode,
        }


class QuoteSerializer(serializers.Serializer):
    """What a callback call to one number costs, and how long it may last; placed once, within 10 minutes."""

    # context: "now" (the status is read against it).

    id = serializers.CharField(help_text="Quote id, prefix quo_.")
    object = serializers.ChoiceField(choices=["quote"])
    status = serializers.ChoiceField(
        choices=["open", "used", "expired"], help_text="open until placed (used) or 10 minutes old (expired)."
    )
    to = serializers.CharField(help_text="The number to call, E.164.")
    to_country = serializers.CharField(allow_null=True, help_text="ISO 3166 alpha-2 of the number.")
    contact = serializers.CharField(
        allow_null=True, help_text="The contact (ct_...) whose number it is, if one was named."
    )
    label = serializers.CharField(help_text="The rate's label, e.g. Germany - Mobile.")
    your_number = serializers.CharField(help_text="Your own verified phone (the default caller ID): it rings first.")
    caller_id = serializers.CharField(help_text="The number the callee sees.")
    record = serializers.BooleanField()
    currency = serializers.CharField(help_text="Lowercase ISO 4217.")
    per_minute_amount_decimal = serializers.CharField(help_text='Minor units a minute, decimal string ("4.5").')
    billing_increment = CallBillingIncrementSerializer()
    max_duration = serializers.IntegerField(
        help_text="Seconds: the least of 4 hours and what the available balance and the spend limits buy."
    )
    max_amount = serializers.IntegerField(
        help_text="Minor units: what max_duration costs; held while the call is live."
    )
    expires_at = serializers.IntegerField(help_text="Unix seconds; placing it later is 410 quote_expired.")
    spend_left_today = serializers.IntegerField(
        help_text="Minor units: the least of what the account's, the credential's and this app's allowance leave today."
    )
    call = serializers.CharField(allow_null=True, help_text="The call placed from it (call_...); null while open.")
    created = serializers.IntegerField(help_text="Unix seconds.")
    livemode = serializers.BooleanField()

    def to_representation(self, quote: Quote) -> dict:
        now = self.context.get("now") or timezone.now()
        status = "used" if quote.call_id else "expired" if now >= quote.expires_at else "open"
        return {
            "id": quote.id,
            "object": "quote",
            "status": status,
            "to": quote.to_number,
            "to_country": quote.to_country or None,
            "contact": quote.contact_id or None,
            "label": quote.label,
            "your_number": quote.your_number,
            "caller_id": quote.caller_id,
            "record": quote.record,
            "currency": quote.currency,
            "per_minute_amount_decimal": decimal_string(quote.per_minute_amount_decimal),
            "billing_increment": {"first_seconds": quote.first_seconds, "next_seconds": quote.next_seconds},
            "max_duration": quote.max_duration,
            "max_amount": quote.max_amount,
            "expires_at": unix_seconds(quote.expires_at),
            "spend_left_today": getattr(quote, "spend_left_today", None),
            "call": quote.call_id or None,
            "created": unix_seconds(quote.created),
            "livemode": quote.livemode,
        }
