"""Writes that follow a password reset or change, and the sharing switches (read through selectors.py).

A new password revokes every OAuth code and token and every API key of the
account (docs/spec.md 3.3): whoever knew the old password may have minted them.
"""

from django.db import transaction
from django.utils import timezone

from apps.apikeys.services import apikey_revoke_all_for_user
from apps.audit.models import AuditEvent, EventType
from apps.audit.services import Actor, audit_record
from apps.credentials.revocation import invalidation_batch
from apps.oauth.connections.services import oauth_tokens_revoke_all_for_user

from .models import SharingSettings, User

PASSWORD_EVENTS = (EventType.PASSWORD_RESET, EventType.PASSWORD_CHANGED)


def user_credentials_revoke_all(*, user: User, event_type: EventType, actor: Actor | None = None) -> AuditEvent:
    """Revoke every token and key of ``user``; one audit row, same transaction.

    Call it in the transaction that saves the new password, so that either the
    password and the revocation both happen or neither does.
    """
    if event_type not in PASSWORD_EVENTS:
        raise ValueError(f"not a password event: {event_type}")
    now = timezone.now()
    with transaction.atomic(), invalidation_batch():
        oauth = oauth_tokens_revoke_all_for_user(user=user, now=now)
        keys = apikey_revoke_all_for_user(user=user)
        return audit_record(
            event_type=event_type,
            user=user,
            actor=actor,
            at=now,
            data={
                "api_keys_revoked": keys,
                "refresh_tokens_revoked": oauth.refresh_tokens,
                "access_tokens_revoked": oauth.access_tokens,
            },
        )


def sharing_update(*, user: User, call_summaries: bool, message_reading: bool) -> SharingSettings:
    """Store both switches; an audit row only when something changed."""
    if not isinstance(call_summaries, bool) or not isinstance(message_reading, bool):
        raise TypeError("sharing switches are booleans")
    with transaction.atomic():
        current, _ = SharingSettings.objects.select_for_update().get_or_create(user=user)
        before = {"call_summaries": current.call_summaries, "message_reading": current.message_reading}
        after = {"call_summaries": call_summaries, "message_reading": message_reading}
        if before != after:
            current.call_summaries = call_summaries
            current.message_reading = message_reading
            current.save()
            audit_record(
                event_type=EventType.SHARING_UPDATED,
                user=user,
                data={name: after[name] for name in after if before[name] != after[name]},
            )
    return current
