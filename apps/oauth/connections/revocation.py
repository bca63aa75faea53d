"""Telling a caller whose token the user revoked to reconnect (docs/spec.md 3.3, 7.2, 8.3).

A disconnect (or a password reset or change) keeps the access-token rows with
``expires`` cut to the moment of revocation. When such a token is presented,
the 401 says why and what to do, and it is not a failed lookup: the caller
holds a token we issued, so it spends nothing of the failed-bearer budget.
"""

from django.utils import timezone

from apps.audit.models import EventType
from apps.audit.selectors import audit_token_revoked_by_user
from apps.credentials.challenges import KnownRevokedToken
from apps.credentials.principal import user_can_act

DISCONNECTED_MESSAGE = (
    "This app was disconnected from the account, so its access was revoked. Reconnect the app to continue."
)
PASSWORD_MESSAGE = "The account's password was changed, which revoked this app's access. Reconnect the app to continue."


def revoked_token_error(*, token, resource_path: str):
    """The 401 to answer for an expired access-token row the user revoked, or None.

    Only called on the failure path (the row exists but is no longer valid),
    so the hot path never pays for this query.
    """
    if (
        token is None
        or token.expires > timezone.now()  # failed for another reason (resource, disabled client)
        or token.application is None
        or token.user is None
        or not user_can_act(token.user)
    ):
        return None
    event = audit_token_revoked_by_user(
        user_id=token.user_id, client_id=token.application.client_id, revoked_at=token.expires
    )
    if event is None:
        return None
    message = DISCONNECTED_MESSAGE if event.event_type == EventType.OAUTH_CONNECTION_REVOKED else PASSWORD_MESSAGE
    return KnownRevokedToken(resource_path, message)


RECONNECT_DESCRIPTION = "The user disconnected this app or changed their password. Ask the user to reconnect."


def refresh_revoked_by_user(*, refresh) -> bool:
    """Whether this (revoked) refresh-token row was revoked by the user's own
    disconnect or password change, rather than rotated or revoked as a family."""
    return refresh is not None and _ended_by_user(refresh, ended_at=refresh.revoked)


def grant_revoked_by_user(*, grant) -> bool:
    return grant is not None and _ended_by_user(grant, ended_at=grant.used_at)


def _ended_by_user(row, *, ended_at) -> bool:
    """Whether the user's disconnect or password change of ``ended_at`` ended this row of a user and client."""
    if ended_at is None or row.user_id is None or row.application_id is None:
        return False
    return (
        audit_token_revoked_by_user(user_id=row.user_id, client_id=row.application.client_id, revoked_at=ended_at)
        is not None
    )
