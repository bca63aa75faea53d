"""Reads of the audit log."""

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
