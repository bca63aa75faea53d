"""Reads of the audit log."""

from django.apps import apps
from django.conf import settings
from django.db.models import Q, QuerySet

from .models import AuditEvent, EventType

# Events after which every OAuth token the user held before is revoked.
_ALL_TOKENS_REVOKED = (EventType.PASSWORD_RESET, EventType.PASSWORD_CHANGED)


def audit_list_for_user(*, user) -> QuerySet[AuditEvent]:
    """The user's own log, newest first."""
    return AuditEvent.objects.filter(user=user).order_by("-created", "-id")


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
            recorded = data.get("client_name")
            if recorded:
                names.setdefault(("client", event.client_id), str(recorded))
            else:
                client_ids.add(event.client_id)
        elif event.key_id:
            recorded = data.get("name")
            if recorded:
                names.setdefault(("key", event.key_id), str(recorded))
            else:
                key_ids.add(event.key_id)
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
