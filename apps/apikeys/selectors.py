from apps.core.ids import digest, looks_like

from .models import LIVE_PREFIX, TEST_PREFIX, ApiKey


def is_api_key_format(secret: str) -> bool:
    return looks_like(secret, LIVE_PREFIX) or looks_like(secret, TEST_PREFIX)


def apikey_get_by_secret(secret: str) -> ApiKey | None:
    """One indexed query by digest, owner joined; None for a malformed secret."""
    if not is_api_key_format(secret):
        return None
    return ApiKey.objects.select_related("user").filter(secret_digest=digest(secret)).first()
