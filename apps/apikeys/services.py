"""Writes on API keys. Validation raises the spec's codes with their ``param``."""

import unicodedata
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from apps.api_v1.public import CURRENT_VERSION
from apps.audit.models import EventType
from apps.audit.services import audit_record
from apps.core.errors import ApiError
from apps.core.ids import digest, new_secret
from apps.credentials.cache import LAST_USED_GRANULARITY
from apps.credentials.revocation import invalidate_user
from apps.credentials.scopes import ALL_SCOPES, is_known
from apps.credentials.signals import credential_ended

from . import ipallow
from .models import LIVE_PREFIX, TEST_PREFIX, ApiKey

MAX_LIVE_KEYS = 10
DEFAULT_EXPIRY_DAYS = 90
MAX_EXPIRY_DAYS = 365
NAME_MAX = 100


def validate_name(name) -> str:
    # Control characters (NUL, newlines, escapes) have no place in a label and
    # NUL cannot even be stored by PostgreSQL.
    if (
        not isinstance(name, str)
        or not name.strip()
        or len(name) > NAME_MAX
        or any(unicodedata.category(c) == "Cc" for c in name)
    ):
        raise ApiError("invalid_name", param="name")
    return name.strip()


def validate_scopes(scopes) -> list[str]:
    if not isinstance(scopes, list) or not scopes or not all(isinstance(s, str) and is_known(s) for s in scopes):
        unknown = [s for s in scopes if isinstance(s, str) and not is_known(s)] if isinstance(scopes, list) else []
        named = f" {unknown[0][:40]!r} is not one." if unknown else ""
        raise ApiError(
            "invalid_scopes",
            f"scopes must be a non-empty list of known scopes.{named} Known scopes: {', '.join(ALL_SCOPES)}.",
            param="scopes",
        )
    return list(dict.fromkeys(scopes))


def validate_expiry(days) -> int:
    if days is None:
        return DEFAULT_EXPIRY_DAYS
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_EXPIRY_DAYS:
        raise ApiError("invalid_expiry", param="expires_in_days")
    return days


def validate_ip_allowlist(entries) -> list[str]:
    if entries is None:
        return []
    try:
        return ipallow.normalise(entries)
    except (TypeError, ValueError):
        raise ApiError("invalid_ip_allowlist", param="ip_allowlist") from None


def _new_secret(livemode: bool) -> tuple[str, str]:
    secret = new_secret(LIVE_PREFIX if livemode else TEST_PREFIX)
    return secret, digest(secret)


@transaction.atomic
def apikey_create(
    *,
    user,
    name,
    scopes,
    expires_in_days=None,
    ip_allowlist=None,
    livemode=True,
) -> tuple[ApiKey, str]:
    """Create a key and return it with its secret, which is never seen again."""
    name = validate_name(name)
    scopes = validate_scopes(scopes)
    days = validate_expiry(expires_in_days)
    allowlist = validate_ip_allowlist(ip_allowlist)
    if not isinstance(livemode, bool):
        raise ApiError("invalid_request", "livemode must be a boolean.", param="livemode")

    # Lock the owner so that concurrent creations count live keys one at a time.
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    now = timezone.now()
    live = ApiKey.objects.filter(user=user, revoked_at__isnull=True, expires_at__gt=now).count()
    if live >= MAX_LIVE_KEYS:
        raise ApiError("api_key_limit")

    secret, secret_digest = _new_secret(livemode)
    key = ApiKey.objects.create(
        user=user,
        name=name,
        scopes=scopes,
        livemode=livemode,
        secret_digest=secret_digest,
        secret_last4=secret[-4:],
        ip_allowlist=allowlist,
        api_version=CURRENT_VERSION,
        created=now,
        expires_at=now + timedelta(days=days),
    )
    audit_record(
        event_type=EventType.API_KEY_CREATED,
        user=user,
        key_id=key.pk,
        data={"name": key.name, "scopes": key.scopes, "livemode": key.livemode},
        at=now,
    )
    return key, secret


@transaction.atomic
def apikey_rotate(*, key: ApiKey) -> tuple[ApiKey, str]:
    """Give the key a new secret; the old one stops working with this commit."""
    key = ApiKey.objects.select_for_update().get(pk=key.pk)
    status = key.status
    if status == ApiKey.REVOKED:
        raise ApiError("api_key_revoked")
    if status == ApiKey.EXPIRED:
        raise ApiError("api_key_expired")
    secret, secret_digest = _new_secret(key.livemode)
    key.secret_digest = secret_digest
    key.secret_last4 = secret[-4:]
    key.save(update_fields=["secret_digest", "secret_last4"])
    audit_record(event_type=EventType.API_KEY_ROTATED, user=key.user_id, key_id=key.pk, data={"name": key.name})
    return key, secret


@transaction.atomic
def apikey_revoke(*, key: ApiKey) -> ApiKey:
    key = ApiKey.objects.select_for_update().get(pk=key.pk)
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
        audit_record(
            event_type=EventType.API_KEY_REVOKED,
            user=key.user_id,
            key_id=key.pk,
            data={"name": key.name},
            at=key.revoked_at,
        )
        credential_ended.send(sender=ApiKey, user_id=key.user_id, kind="api_key", credential_id=key.pk)
    return key


def apikey_revoke_all_for_user(*, user) -> int:
    count = ApiKey.objects.filter(user=user, revoked_at__isnull=True).update(revoked_at=timezone.now())
    invalidate_user(user.pk)  # a bulk update sends no signal
    credential_ended.send(sender=ApiKey, user_id=user.pk, kind="api_key", credential_id=None)
    return count


def apikey_mark_used(*, key: ApiKey, now=None) -> None:
    """Stamp last use at most once a minute, so reads stay free of writes."""
    now = now or timezone.now()
    if key.last_used_at is not None and now - key.last_used_at < LAST_USED_GRANULARITY:
        return
    apikey_mark_used_by_id(key_id=key.pk, now=now)
    key.last_used_at = now


def apikey_mark_used_by_id(*, key_id: str, now=None) -> None:
    """Stamp last use by id; the credential cache asks once per LAST_USED_GRANULARITY per key."""
    ApiKey.objects.filter(pk=key_id).update(last_used_at=now or timezone.now())
