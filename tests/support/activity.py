"""Entries of an account's activity log, written as the service writes them."""

from datetime import timedelta

from apps.audit.models import EventType
from apps.audit.services import actor_client, audit_record


def record_refreshes(user, client_id: str, count: int, *, latest):
    """``count`` token refreshes by the app ``client_id``, a minute apart, the latest at ``latest``."""
    for n in range(count):
        audit_record(
            event_type=EventType.OAUTH_TOKEN_REFRESHED,
            user=user,
            actor=actor_client(client_id),
            client_id=client_id,
            at=latest - timedelta(minutes=n),
        )
