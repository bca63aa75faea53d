"""Resolution of ``sk_live_``/``sk_test_`` secrets for /v1 (named in settings.BEARER_RESOLVERS)."""

from django.utils import timezone

from apps.core.errors import ApiError
from apps.core.net import client_ip
from apps.credentials.challenges import invalid_token
from apps.credentials.principal import Principal, user_can_act

from . import ipallow
from .selectors import apikey_get_by_secret
from .services import apikey_mark_used, apikey_mark_used_by_id


def resolve(request, secret: str, *, resource_path: str) -> Principal:
    key = apikey_get_by_secret(secret)
    now = timezone.now()
    if key is None or key.status_at(now) != key.LIVE or not user_can_act(key.user):
        raise invalid_token(resource_path)
    if not ipallow.allows(key.ip_allowlist, client_ip(request)):
        raise ApiError("ip_not_allowed")
    apikey_mark_used(key=key, now=now)
    return Principal(
        kind="api_key",
        user=key.user,
        credential_id=key.id,
        scopes=frozenset(key.scopes),
        livemode=key.livemode,
        api_version=key.api_version,
        credential=key,
    )


def stamp_last_use(key_id: str) -> None:
    apikey_mark_used_by_id(key_id=key_id)


def standing(*, user_id, credential_id: str) -> frozenset | None:
    """A key's scopes while it is live and its account may act (settings.CREDENTIAL_STANDING)."""
    from .models import ApiKey

    key = ApiKey.objects.select_related("user").filter(pk=credential_id, user_id=user_id).first()
    if key is None or key.status_at(timezone.now()) != key.LIVE or not user_can_act(key.user):
        return None
    return frozenset(key.scopes)
