"""Writes of the audit log."""

import ipaddress
from dataclasses import dataclass
from datetime import timedelta

from django.db import connections, router
from django.utils import timezone

from apps.core.net import client_ip
from apps.core.purge import delete_in_batches
from apps.core.request_context import current_request, notes
from apps.core.sql import insert_statement, inserted, write_together

from .models import SENSITIVE_EVENT_TYPES, ActorType, AuditEvent, EventType

RETENTION = timedelta(days=400)  # docs/spec.md 8.5
PURGE_BATCH = 1000


@dataclass(frozen=True)
class Actor:
    type: str
    id: str = ""


SYSTEM = Actor(ActorType.SYSTEM)


def actor_user(user) -> Actor:
    return Actor(ActorType.USER, user.pk)


def actor_client(client_id: str) -> Actor:
    return Actor(ActorType.CLIENT, client_id)


def actor_api_key(key_id: str) -> Actor:
    return Actor(ActorType.API_KEY, key_id)


def _source_address(request) -> str | None:
    # A malformed address (a misconfigured proxy) must never fail the action it records.
    if request is None:
        return None
    try:
        return str(ipaddress.ip_address(client_ip(request)))
    except ValueError:
        return None


def _request_actor(request) -> Actor:
    user = getattr(request, "user", None) if request is not None else None
    if user is not None and getattr(user, "is_authenticated", False):
        return actor_user(user)
    return SYSTEM


def audit_record(**fields) -> AuditEvent:
    """Write the row ``audit_event(**fields)`` describes. Call it inside the action's own transaction."""
    event = audit_event(**fields)
    event.save(force_insert=True)
    return event


def audit_record_all(events: list[AuditEvent]) -> None:
    """Write rows of ``audit_event`` or ``audit_sensitive_event`` in one statement (an action that
    touched several things at once). Call it inside the action's own transaction, if it has one.

    On PostgreSQL the rows are one statement on their own (a data-modifying ``WITH``), atomic
    without a transaction: a read that records what it returned (a message list) sends one
    round trip for its audit, not BEGIN, INSERT and COMMIT.
    """
    if not events:
        return
    connection = connections[router.db_for_write(AuditEvent)]
    if connection.vendor != "postgresql":
        AuditEvent.objects.bulk_create(events)
        return
    write_together([insert_statement(event, connection) for event in events], using=connection.alias)
    for event in events:
        inserted(event, connection)


def audit_event(
    *,
    event_type: EventType | str,
    user,
    actor: Actor | None = None,
    client_id: str = "",
    key_id: str = "",
    data: dict | None = None,
    request=None,
    at=None,
) -> AuditEvent:
    """One audit row, unsaved (``audit_record`` writes it; an action may write it in its own statement).

    ``user`` is the account the event belongs to (whose log shows it);
    ``actor`` who acted, by default the signed-in user of the request being
    served, else the system. Address and request id come from ``request`` or
    the request being served (apps.audit.context). ``at`` is the moment of the
    action when the action stamps rows with it too (default: now).
    """
    event_type = EventType(event_type)  # an unknown type is a programming error: fail loudly
    request = request if request is not None else current_request.get()
    actor = actor or _request_actor(request)
    return AuditEvent(
        event_type=event_type,
        # A user or just its id: callers holding only ``user_id`` need no extra query.
        user_id=user if isinstance(user, str) else user.pk,
        actor_type=actor.type,
        actor_id=actor.id or "",
        client_id=client_id or "",
        key_id=key_id or "",
        ip_address=_source_address(request),
        request_id=notes(request).request_id if request is not None else "",
        data=data or {},
        created=at or timezone.now(),
    )


SUMMARY_MAX = 200


def audit_sign_in(*, user, request, succeeded: bool, page: str) -> AuditEvent:
    """A sign-in to ``user``'s account at ``page`` ("sign-in" or "admin"), or a failed attempt
    at it (a wrong password, or an account that may not sign in there). Attempts for an
    address no account has are nobody's to see and are not recorded."""
    return audit_record(
        event_type=EventType.SIGNED_IN if succeeded else EventType.SIGN_IN_FAILED,
        user=user,
        actor=actor_user(user) if succeeded else SYSTEM,
        request=request,
        data={"page": page},
    )


def audit_sensitive_action(*, principal, event_type: EventType | str, summary: str, data: dict | None = None, at=None):
    """Record a sensitive action an app or API key took for its owner, and return the row.

    ``principal`` is the caller of the request (apps.credentials.principal.Principal):
    the row names its app (OAuth) or key and shows on Activity and on the app's
    own entry on Connected apps. ``event_type`` is one of SENSITIVE_EVENT_TYPES;
    ``summary`` the sentence the owner reads, lower case, naming what was touched
    ("read 2 messages of +44 20 7183 8750", "placed a call to +49 151 ..."); ``at`` the
    moment of the action when the action stamps its rows with it (default: now). Call it
    inside the action's own transaction, so an action that rolls back leaves no row.
    """
    event = audit_sensitive_event(principal=principal, event_type=event_type, summary=summary, data=data, at=at)
    event.save(force_insert=True)
    return event


def audit_sensitive_event(*, principal, event_type: EventType | str, summary: str, data: dict | None = None, at=None):
    """The row audit_sensitive_action writes, unsaved: for an action that writes it in its own statement.
    ``at``: the moment of the action when it stamps its own rows with it (default now)."""
    event_type = EventType(event_type)
    if event_type not in SENSITIVE_EVENT_TYPES:
        raise ValueError(f"not a sensitive action: {event_type}")
    if not summary:
        raise ValueError("a sensitive action needs its summary")
    client_id = key_id = ""
    if principal.kind == "oauth":
        client_id = principal.client_id or principal.credential_id
        actor = actor_client(client_id)
    elif principal.kind == "api_key":
        key_id = principal.credential_id
        actor = actor_api_key(key_id)
    else:  # the signed-in owner at a page of the service
        actor = actor_user(principal.user)
    return audit_event(
        event_type=event_type,
        user=principal.user,
        actor=actor,
        client_id=client_id,
        key_id=key_id,
        data={**(data or {}), "summary": summary[:SUMMARY_MAX], "livemode": bool(principal.livemode)},
        at=at,
    )


def audit_purge(*, now=None, retention: timedelta = RETENTION, batch_size: int = PURGE_BATCH) -> int:
    """Delete rows older than the retention period, in small batches so that a
    large backlog never holds a long lock; returns how many were deleted.

    A row exactly at the boundary (created == now - retention) is kept.
    """
    cutoff = (now or timezone.now()) - retention
    return delete_in_batches(AuditEvent.objects.filter(created__lt=cutoff), batch_size=batch_size)
