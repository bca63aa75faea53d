"""Reads of the audit log."""

from django.apps import apps
from django.conf import settings
from django.db.models import Q, QuerySet

from .models import DECISION_EVENT_TYPES, EVENT_KINDS, SENSITIVE_EVENT_TYPES, AuditEvent, EventType

RECENT_SENSITIVE = 5
SHOWN_ON_ENTRY = sorted(SENSITIVE_EVENT_TYPES | DECISION_EVENT_TYPES)

# Events after which every OAuth token the user held before is revoked.
_ALL_TOKENS_REVOKED = (EventType.PASSWORD_RESET, EventType.PASSWORD_CHANGED)


def audit_list_for_user(*, user) -> QuerySet[AuditEvent]:
    """The user's own log, newest first."""
    return AuditEvent.objects.filter(user=user).order_by("-created", "-id")


def audit_activity(*, user, client_id: str = "", kind: str = "") -> QuerySet[AuditEvent]:
    """The user's log, newest first, narrowed to one app (its client id) and one kind
    of EVENT_KINDS when given. An unknown kind narrows to nothing."""
    events = audit_list_for_user(user=user)
    if client_id:
        events = events.filter(client_id=client_id)
    if kind:
        _label, types = EVENT_KINDS.get(kind, ("", frozenset()))
        events = events.filter(event_type__in=sorted(types))
    return events


def audit_event_for_user(*, user, event_id: str) -> AuditEvent | None:
    """One of the user's own events (a paging cursor), or None."""
    if not isinstance(event_id, str) or not event_id.startswith("evt_") or len(event_id) > 32:
        return None
    return AuditEvent.objects.filter(user=user, pk=event_id).only("id", "created").first()


def audit_page(events: QuerySet[AuditEvent], *, after=None, before=None, limit: int) -> tuple[list[AuditEvent], bool]:
    """One page of ``events`` (newest first) and whether more lie beyond it: the rows
    older than the cursor event ``after``, or the rows newer than ``before`` (then
    still returned newest first). Keyed on (created, id), so rows written meanwhile
    never shift a page."""
    if after is not None:
        rows = list(
            events.filter(Q(created__lt=after.created) | Q(created=after.created, id__lt=after.id))[: limit + 1]
        )
    elif before is not None:
        rows = list(
            events.filter(Q(created__gt=before.created) | Q(created=before.created, id__gt=before.id)).order_by(
                "created", "id"
            )[: limit + 1]
        )
        more = len(rows) > limit
        return list(reversed(rows[:limit])), more
    else:
        rows = list(events[: limit + 1])
    return rows[:limit], len(rows) > limit


def audit_app_client_ids(*, user) -> list[str]:
    """The client ids of every app the user's log mentions (Activity's app filter)."""
    return sorted(
        AuditEvent.objects.filter(user=user).exclude(client_id="").values_list("client_id", flat=True).distinct()
    )


def audit_recent_sensitive_actions(*, user, client_id: str, limit: int = RECENT_SENSITIVE) -> list[AuditEvent]:
    """The app's latest sensitive actions on the user's account (audit_sensitive_action) and the user's
    decisions about it (confirmations, declines, allowance), newest first."""
    return audit_recent_sensitive_actions_by_app(user=user, client_ids=[client_id], limit=limit).get(client_id, [])


def audit_recent_sensitive_actions_by_app(
    *, user, client_ids, limit: int = RECENT_SENSITIVE
) -> dict[str, list[AuditEvent]]:
    """audit_recent_sensitive_actions for several apps at once (one query per app, each on
    audit_user_client_idx), keyed by client id; apps with none are left out."""
    found: dict[str, list[AuditEvent]] = {}
    for client_id in client_ids:
        rows = list(audit_list_for_user(user=user).filter(client_id=client_id, event_type__in=SHOWN_ON_ENTRY)[:limit])
        if rows:
            found[client_id] = rows
    return found


def audit_token_revoked_by_user(*, user_id: str, client_id: str, revoked_at) -> AuditEvent | None:
    """The user's own action that revoked a token of ``client_id`` at exactly
    ``revoked_at``: a disconnect of that client, or a password reset or change.

    Those actions stamp the tokens and their audit row with the same instant,
    so a token that merely expired, or a refresh token rotated earlier (whose
    reuse is a theft signal), never matches. Only looked at on the failure
    path of a lookup, to tell the caller to reconnect rather than count the
    token as a guess (docs/spec.md 3.3, 8.3).
    """
    if revoked_at is None:
        return None
    return (
        AuditEvent.objects.filter(user_id=user_id, created=revoked_at)
        .filter(
            Q(event_type=EventType.OAUTH_CONNECTION_REVOKED, client_id=client_id)
            | Q(event_type__in=_ALL_TOKENS_REVOKED)
        )
        .first()
    )


def audit_subject_names(*, user, events) -> dict[tuple[str, str], str]:
    """Display names of the apps and API keys that ``events`` concern, keyed by
    ("client", client_id) or ("key", key_id). At most two queries.

    The name an event recorded when it happened comes first (what the app or key
    was called then); otherwise the current name of the client, or of the user's
    own key. The models are looked up by name so that the audit log, which every
    app writes to, imports none of them.
    """
    names: dict[tuple[str, str], str] = {}
    client_ids, key_ids = set(), set()
    for event in events:
        data = event.data if isinstance(event.data, dict) else {}
        if event.client_id:
            kind, subject, recorded, unnamed = "client", event.client_id, data.get("client_name"), client_ids
        elif event.key_id:
            kind, subject, recorded, unnamed = "key", event.key_id, data.get("name"), key_ids
        else:
            continue
        if recorded:
            names.setdefault((kind, subject), str(recorded))
        else:
            unnamed.add(subject)
    client_ids -= {client_id for kind, client_id in names if kind == "client"}
    key_ids -= {key_id for kind, key_id in names if kind == "key"}
    if client_ids:
        application_model = apps.get_model(settings.OAUTH2_PROVIDER_APPLICATION_MODEL)
        for client_id, name in application_model.objects.filter(client_id__in=client_ids).values_list(
            "client_id", "name"
        ):
            if name:
                names[("client", client_id)] = name
    if key_ids:
        key_model = apps.get_model("apikeys", "ApiKey")
        for key_id, name in key_model.objects.filter(user=user, pk__in=key_ids).values_list("pk", "name"):
            names[("key", key_id)] = name
    return names
