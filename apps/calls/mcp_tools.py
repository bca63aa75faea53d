"""svc_list_calls, svc_get_call, svc_get_call_summary (docs/design.md, Phase 2).

Each tool reads through the same selectors and serializer as GET /v1/calls and
/v1/calls/{id}, then projects the REST object onto the tool's output and adds
display strings and a ``spoken`` line. Contact names need contacts:read: without
it the calls still come, names null and ``contact_names_hidden`` true.
"""

from django.conf import settings
from django.utils import timezone

from apps.api_v1.public import has_scope, page
from apps.core.errors import ApiError
from apps.mcp_bridge.public import ToolFailure, ToolSpec, list_of, register

from . import selectors, spoken
from .models import CALL_PREFIX, Direction, Status
from .serializers import CallSerializer
from .services import call_refresh
from .tool_shapes import CALL_FIELDS, CALL_PROPERTIES, call_item, call_result
from .transcripts import transcript_refresh

LIST_LIMIT_MAX = 10
LIST_LIMIT_DEFAULT = 5
NULLABLE_STRING = {"type": ["string", "null"]}
NULLABLE_INTEGER = {"type": ["integer", "null"]}
CALL_ID_INPUT = {
    "type": "string",
    "pattern": selectors.CALL_ID_PATTERN,
    "maxLength": 69,
    "description": "A call id, call_ followed by letters and digits (from svc_list_calls).",
}
# The input of each tool that reads one call.
ONE_CALL_INPUT = {
    "type": "object",
    "properties": {"call_id": CALL_ID_INPUT},
    "required": ["call_id"],
    "additionalProperties": False,
}


def _unknown_call(call_id: str) -> ToolFailure:
    return ToolFailure(f"There is no call {call_id} in this account. Use svc_list_calls to find the call's id.")


# --- svc_list_calls ---------------------------------------------------------------------------

# The fields of a call in the list: its schema declares them, and list_calls copies exactly these.
LIST_ITEM_PROPERTIES = {
    "id": {"type": "string"},
    "direction": {"type": "string", "enum": Direction.values},
    "status": {"type": "string", "enum": Status.values},
    "from": {"type": "string", "description": "Calling number, E.164."},
    "to": {"type": "string", "description": "Called number, E.164."},
    "contact_name": {**NULLABLE_STRING, "description": "Null when no contact matched or names are hidden."},
    "created": {"type": "integer", "description": "Unix seconds (UTC)."},
    "duration": {"type": "integer", "description": "Talk seconds (so far, while in progress)."},
    "amount": {**NULLABLE_INTEGER, "description": "Minor units; null if never answered."},
    "amount_display": {**NULLABLE_STRING, "description": 'The amount for display, e.g. "$0.09".'},
    "currency": {"type": "string"},
}


def list_calls(*, principal, arguments) -> dict:
    names = has_scope(principal, "contacts:read")
    direction = arguments.get("direction")
    after = arguments.get("starting_after")
    calls = selectors.call_list(principal=principal, direction=direction, contact_names=names)
    try:
        found = page(calls, limit=arguments.get("limit", LIST_LIMIT_DEFAULT), after=after, prefix=CALL_PREFIX)
    except ApiError:
        raise ToolFailure(
            f"{after} is not one of this account's calls in this list. Pass the id of the last call of the "
            "previous page as starting_after, or leave it out to start from the newest call."
        ) from None
    now = timezone.now()
    # One serializer's to_representation per call is what many=True runs, without building a ListSerializer.
    serializer = CallSerializer(context={"now": now})
    items = []
    for call in found.items:
        item = call_item(call, serializer.to_representation(call), names)
        items.append({k: item[k] for k in LIST_ITEM_PROPERTIES})
    return {
        "calls": items,
        "has_more": found.has_more,
        "contact_names_hidden": not names,
        "spoken": spoken.calls_sentence(
            items, has_more=found.has_more, next_page=after is not None, direction=direction, now=now
        ),
    }


svc_list_calls = register(
    ToolSpec(
        name="svc_list_calls",
        title="List calls",
        description=(
            "Lists the user's calls, newest first: direction, status, numbers, contact name, time, duration "
            "and cost. Page with starting_after (the last id of the previous page) while has_more is true. "
            "Needs calls:read; contact names also need contacts:read (otherwise contact_names_hidden is true). "
            "Times are Unix seconds, spoken in UTC."
        ),
        scope="calls:read",
        handler=list_calls,
        input_schema={
            "type": "object",
            "properties": {
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": LIST_LIMIT_MAX,
                    "default": LIST_LIMIT_DEFAULT,
                    "description": "How many calls, 1 to 10 (default 5).",
                },
                "direction": {
                    "type": "string",
                    "enum": Direction.values,
                    "description": "Only inbound or only outbound calls.",
                },
                "starting_after": {
                    **CALL_ID_INPUT,
                    "description": "The id of the last call of the previous page, for the next page.",
                },
            },
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {
                "calls": list_of(LIST_ITEM_PROPERTIES, most=LIST_LIMIT_MAX),
                "has_more": {"type": "boolean", "description": "True when older calls follow."},
                "contact_names_hidden": {
                    "type": "boolean",
                    "description": "True when the connection lacks contacts:read, so contact names are left out.",
                },
                "spoken": {"type": "string", "description": "The calls in one line, for reading aloud."},
            },
            "required": ["calls", "has_more", "contact_names_hidden", "spoken"],
            "additionalProperties": False,
        },
    )
)


# --- svc_get_call -----------------------------------------------------------------------------


def get_call(*, principal, arguments) -> dict:
    names = has_scope(principal, "contacts:read")
    call_id = arguments["call_id"]
    call = selectors.call_get(principal=principal, call_id=call_id, contact_names=names)
    if call is None:
        raise _unknown_call(call_id)
    if call_refresh(call):
        call = selectors.call_get(principal=principal, call_id=call_id, contact_names=names)
    now = timezone.now()
    result, item = call_result(call, names=names, now=now)
    return {**result, "spoken": spoken.call_sentence(item, now)}


svc_get_call = register(
    ToolSpec(
        name="svc_get_call",
        title="Get a call",
        description=(
            "One call of the user by id: its status (live while queued, ringing or in progress), numbers, contact, "
            "times, duration, the rate applied and the cost (so far, while in progress). Needs calls:read; the "
            "contact name also needs contacts:read."
        ),
        scope="calls:read",
        handler=get_call,
        input_schema=ONE_CALL_INPUT,
        output_schema={
            "type": "object",
            "properties": {
                **CALL_PROPERTIES,
                "contact_names_hidden": {"type": "boolean"},
                "spoken": {"type": "string", "description": "The call in one sentence, for reading aloud."},
            },
            "required": [*CALL_FIELDS, "contact_names_hidden", "spoken"],
            "additionalProperties": False,
        },
    )
)


# --- svc_get_call_summary ---------------------------------------------------------------------


def summaries_off_sentence() -> str:
    return (
        "Call summaries are not shared with connected apps: the account's call summaries setting is off. "
        f'The user can turn on "{selectors.SHARING_SETTING}" at {settings.APP_URL}/settings/sharing and then ask again.'
    )


def get_call_summary(*, principal, arguments) -> dict:
    # Only reads a transcript that exists: this tool never starts a transcription.
    if not selectors.call_summaries_shared(principal=principal):
        raise ToolFailure(summaries_off_sentence())
    call_id = arguments["call_id"]
    names = has_scope(principal, "contacts:read")
    call = selectors.call_get(principal=principal, call_id=call_id, transcripts=True, contact_names=names)
    if call is None:
        raise _unknown_call(call_id)
    transcript = selectors.call_transcript(call)
    if transcript_refresh(transcript):
        transcript.refresh_from_db()
    if transcript is None:
        if call.is_live:
            raise ToolFailure(
                "This call is still going on and has no summary yet. Ask again after it has ended; a summary "
                "exists only if the call was transcribed."
            )
        raise ToolFailure(
            "This call has no transcript, so there is no summary to read; only transcribed calls have one, and "
            "this tool cannot start a transcription. Tell the user, or look for another call with svc_list_calls."
        )
    if transcript.status in ("queued", "processing"):
        raise ToolFailure(
            "This call's transcript is being prepared and its summary is not ready yet. Ask again in a minute; "
            "this tool does not start or speed up a transcription."
        )
    if transcript.status == "failed":
        raise ToolFailure(
            "This call's transcript could not be made, so there is no summary to read, and it cost nothing. "
            "Tell the user."
        )
    now = timezone.now()
    item = call_item(call, CallSerializer(call, context={"now": now}).data, names)
    with_whom = "with " + spoken.party(item)
    sentence = f"Summary of your call {with_whom} on {spoken.when(item['created'], now)}: {transcript.summary}"
    if transcript.action_items:
        sentence += " Action items: " + "; ".join(transcript.action_items) + "."
    if transcript.reference_numbers:
        sentence += " Reference numbers: " + ", ".join(transcript.reference_numbers) + "."
    return {
        "call_id": call.id,
        "summary": transcript.summary,
        "action_items": list(transcript.action_items),
        "reference_numbers": list(transcript.reference_numbers),
        "language": transcript.language,
        "spoken": spoken.one_line(sentence),
    }


svc_get_call_summary = register(
    ToolSpec(
        name="svc_get_call_summary",
        title="Get a call summary",
        description=(
            "The AI summary of one of the user's calls: summary, action items and reference numbers said in the "
            "call. Reads an existing transcript only and never starts a transcription. Needs transcripts:read and "
            "the account's call summaries setting turned on by the user."
        ),
        scope="transcripts:read",
        handler=get_call_summary,
        input_schema=ONE_CALL_INPUT,
        output_schema={
            "type": "object",
            "properties": {
                "call_id": {"type": "string"},
                "summary": {"type": "string"},
                "action_items": {"type": "array", "items": {"type": "string"}},
                "reference_numbers": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Order, case or booking numbers said in the call.",
                },
                "language": {"type": "string", "description": "BCP 47 language tag of the call."},
                "spoken": {"type": "string", "description": "The summary in a few sentences, for reading aloud."},
            },
            "required": ["call_id", "summary", "action_items", "reference_numbers", "language", "spoken"],
            "additionalProperties": False,
        },
    )
)

# The callback tools (calls:place) live beside these and register with this module.
from . import callback_tools  # noqa: E402, F401
