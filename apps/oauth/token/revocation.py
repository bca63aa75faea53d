"""Ending tokens: a whole grant family at once, and RFC 7009 revocation."""

import uuid

from django.db import transaction
from django.utils import timezone

from apps.core.ids import digest

from ..models import AccessToken, Grant, RefreshToken


def family_revoke(*, family: uuid.UUID | None) -> None:
    """Revoke a whole grant family at once: its code, every refresh token, every access token."""
    if family is None:
        return
    now = timezone.now()
    with transaction.atomic():
        Grant.objects.filter(family=family, used_at__isnull=True).update(used_at=now)
        RefreshToken.objects.filter(token_family=family, revoked__isnull=True).update(
            revoked=now, updated=now, access_token=None
        )
        AccessToken.objects.filter(family=family).delete()


def token_revoke(*, token: str, client_id: str | None) -> None:
    """RFC 7009. Revoking a refresh token ends its whole grant family (and so its
    access tokens); revoking an access token ends that token. A client_id that
    does not own the token revokes nothing, and the answer is the same 200."""
    token_digest = digest(token)
    if token.startswith("srt_"):
        refresh = RefreshToken.objects.select_related("application").filter(token_checksum=token_digest).first()
        if refresh is not None and (not client_id or refresh.application.client_id == client_id):
            family_revoke(family=refresh.token_family)
        return
    if token.startswith("sat_"):
        access = AccessToken.objects.select_related("application").filter(token_checksum=token_digest).first()
        if access is not None and (not client_id or (access.application and access.application.client_id == client_id)):
            access.delete()
