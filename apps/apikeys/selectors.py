from django.db.models import QuerySet

from apps.core.ids import digest, is_id, looks_like

from .models import KEY_ID_PREFIX, LIVE_PREFIX, TEST_PREFIX, ApiKey


def is_api_key_format(secret: str) -> bool:
    return looks_like(secret, LIVE_PREFIX) or looks_like(secret, TEST_PREFIX)


def apikey_get_by_secret(secret: str) -> ApiKey | None:
    """One indexed query by digest, owner joined; None for a malformed secret."""
    if not is_api_key_format(secret):
        return None
    return ApiKey.objects.select_related("user").filter(secret_digest=digest(secret)).first()


def apikey_list(*, user) -> QuerySet[ApiKey]:
    """The user's keys of every status; the list view pages them newest first."""
    return ApiKey.objects.filter(user=user)


def apikey_get(*, user, key_id: str) -> ApiKey | None:
    """The user's key by id; None for another account's key, so it reads as absent."""
    # Checked before any query: a stray byte (NUL) in a path never reaches the database.
    if not is_id(key_id, KEY_ID_PREFIX):
        return None
    return ApiKey.objects.filter(user=user, pk=key_id).first()
