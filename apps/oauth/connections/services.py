"""Writes for connected apps: disconnect one client, or every client at once."""

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from apps.audit.models import EventType
from apps.audit.services import audit_record
from apps.core.errors import ApiError
from apps.credentials.revocation import invalidate_user
from apps.credentials.signals import credential_ended
from apps.oauth.models import AccessToken, Application, Grant, RefreshToken

from .selectors import live_refresh_q


@dataclass(frozen=True)
class Revoked:
    codes: int
    refresh_tokens: int
    access_tokens: int
    live: bool  # whether anything was still usable before the revocation


def _revoke(*, user, application: Application | None, now) -> Revoked:
    """Revoke every code, refresh token and access token of ``user`` (for one
    client, or for all), in the caller's transaction.

    The unused codes and live refresh tokens are locked first: an exchange or
    refresh in flight holds the same rows, so we wait for it to commit, and the
    UPDATEs below (new statements, so a fresh snapshot) then see the tokens it
    issued. Without this a refresh racing the disconnect could mint a token
    that survives it. Codes past their expiry are locked and voided too: an
    exchange that checked its code an instant before it expired may still be
    about to redeem it. Only codes still within their lifetime count as live.

    Access-token rows are kept with ``expires`` set to now rather than deleted,
    so that presenting one is recognised as revoked by the user (the 401 asks
    to reconnect and is not counted as a failed lookup; docs/spec.md 3.3, 8.3).
    """
    rows = {"user": user}
    if application is not None:
        rows["application"] = application
    unused_codes = Grant.objects.filter(**rows, used_at__isnull=True)
    pending_codes = unused_codes.filter(expires__gt=now)
    live_refresh = RefreshToken.objects.filter(live_refresh_q(now), **rows)
    locked_codes = sum(expires > now for expires in unused_codes.select_for_update().values_list("expires", flat=True))
    locked_refresh = len(live_refresh.select_for_update().values_list("pk", flat=True))
    codes = pending_codes.update(used_at=now)
    unused_codes.update(used_at=now)  # the expired ones left
    refresh = RefreshToken.objects.filter(**rows, revoked__isnull=True).update(revoked=now, updated=now)
    access = AccessToken.objects.filter(**rows, expires__gt=now).update(expires=now, updated=now)
    invalidate_user(user.pk)  # a bulk update sends no signal; cached access tokens die with the rows
    credential_ended.send(
        sender=Application,
        user_id=user.pk,
        kind="oauth",
        credential_id=application.client_id if application is not None else None,
    )
    return Revoked(
        codes=codes,
        refresh_tokens=refresh,
        access_tokens=access,
        live=bool(locked_codes or locked_refresh or codes or access),
    )


def connection_revoke(*, user, client_id: str) -> Application:
    """Disconnect an app: every code and token it holds for ``user`` stops
    working with this commit (docs/spec.md 3.3). One audit row, in the same transaction.

    ``connection_not_found`` when the app holds nothing live for this user; the
    answer is the same for a client that does not exist, so the endpoint tells
    nothing about other users' connections.
    """
    # A NUL or control character is never in a client id and must not reach the query.
    known = client_id and client_id.isprintable()
    application = Application.objects.filter(client_id=client_id).first() if known else None
    if application is None:
        raise ApiError("connection_not_found", param="client_id")
    now = timezone.now()
    with transaction.atomic():
        revoked = _revoke(user=user, application=application, now=now)
        if not revoked.live:
            raise ApiError("connection_not_found", param="client_id")
        audit_record(
            event_type=EventType.OAUTH_CONNECTION_REVOKED,
            user=user,
            client_id=application.client_id,
            at=now,
            data={
                "client_name": application.name,
                "refresh_tokens_revoked": revoked.refresh_tokens,
                "access_tokens_revoked": revoked.access_tokens,
            },
        )
    return application


def oauth_tokens_revoke_all_for_user(*, user, now=None) -> Revoked:
    """Every OAuth code and token of ``user``, all clients (password reset or
    change). Runs in the caller's transaction; the caller writes the audit row
    with the same ``now`` (so a revoked token presented later asks to reconnect)."""
    with transaction.atomic():
        return _revoke(user=user, application=None, now=now or timezone.now())
