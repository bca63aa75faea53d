"""The one table of event types: what each carries, and what may receive it.

A type is delivered to an endpoint only while the credential that owns the
endpoint holds the type's scope, and, where a sharing switch or a number's
opt-in guards the object, while that is on. Both are checked when the event is
made and again at each delivery attempt. /docs/webhooks lists this table.
"""

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace

from apps.accounts.selectors import sharing_get


@dataclass(frozen=True)
class EventType:
    name: str
    scope: str | None  # None: any endpoint (ping)
    description: str
    payload: str
    # The fields of a thin payload: only these leave the service (never a body or a code).
    thin_fields: tuple[str, ...] | None = None
    # The sharing switch the account holder must have on (apps.accounts SharingSettings).
    switch: str | None = None


_CALL = "The call as GET /v1/calls/{id} shows it."


def _transcript(name: str, description: str) -> EventType:
    """A transcript.* type: thin, and sent only while the account holder shares call summaries."""
    return EventType(
        name,
        "transcripts:read",
        description,
        "Thin: id, object, call, status.",
        thin_fields=("id", "object", "call", "status"),
        switch="call_summaries",
    )


EVENT_TYPES: dict[str, EventType] = {
    t.name: t
    for t in (
        EventType("call.ringing_you", "calls:read", "A callback call is ringing your phone.", _CALL),
        EventType("call.in_progress", "calls:read", "The callee answered; billing has started.", _CALL),
        EventType("call.ended", "calls:read", "A call ended, whatever its outcome (see end_reason).", _CALL),
        _transcript(
            "transcript.completed", "A transcript is ready; read it with GET /v1/calls/{call}?expand[]=transcript."
        ),
        _transcript("transcript.failed", "A transcript could not be made (see failure_reason when you read it)."),
        EventType(
            "message.received",
            "messages:read",
            "An SMS arrived on a number whose messages you share; read it with GET /v1/messages/{id}.",
            "Thin: id, object, number, created. Never the body or a code.",
            thin_fields=("id", "object", "number", "created"),
        ),
        EventType("balance.low", "credits:read", "The available balance fell below the low mark.", "amount, currency."),
        EventType("ping", None, "Sent by POST /v1/webhook_endpoints/{id}/test.", "The endpoint, without its secret."),
    )
}
SUBSCRIBABLE: tuple[str, ...] = tuple(name for name in EVENT_TYPES if name != "ping")
ALL = "*"

# Further conditions an object's app adds for its types (a number's opt-in for
# message.received): ``gate(user_id, livemode, data) -> bool``. Registered by that app,
# so this app imports none of them.
_gates: dict[str, Callable[..., bool]] = {}


def register_gate(type_name: str, gate: Callable[..., bool]) -> None:
    if type_name not in EVENT_TYPES:
        raise ValueError(f"unknown event type {type_name!r}")
    _gates[type_name] = gate


def thin(type_name: str, data: dict) -> dict:
    fields = EVENT_TYPES[type_name].thin_fields
    return data if fields is None else {name: data.get(name) for name in fields}


def scopes_allow(type_name: str, scopes) -> bool:
    scope = EVENT_TYPES[type_name].scope
    return scope is None or scope in scopes


def subscribed(enabled_events: list, type_name: str) -> bool:
    return type_name == "ping" or type_name in enabled_events or ALL in enabled_events


def may_receive(*, type_name: str, scopes, user_id, livemode: bool, data: dict) -> bool:
    """Whether a credential holding ``scopes`` may be sent this event now: scope, switch, gate."""
    event_type = EVENT_TYPES[type_name]
    if not scopes_allow(type_name, scopes):
        return False
    if event_type.switch and not getattr(sharing_get(user=SimpleNamespace(pk=user_id)), event_type.switch):
        return False
    gate = _gates.get(type_name)
    return gate is None or gate(user_id=user_id, livemode=livemode, data=data)
