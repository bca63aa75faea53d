"""Resolution of a bearer secret into a Principal, shared by /v1 and /mcp.

Dispatch is on the secret's prefix, so a malformed or foreign string never
reaches the database. Each resolver returns a Principal or raises ApiError.
"""

from collections.abc import Callable

from django.conf import settings
from django.utils import timezone

from apps.apikeys import ipallow
from apps.apikeys.selectors import apikey_get_by_secret
from apps.apikeys.services import apikey_mark_used
from apps.core.errors import ApiError
from apps.core.ids import looks_like
from apps.core.net import client_ip
from apps.ratelimit.services import ratelimit_bearer_failure, ratelimit_class

from . import credential_cache
from .principal import Principal

INVALID_MESSAGE = "The access token is invalid, expired or revoked."
MISSING_MESSAGE = "No access token was sent. Send it in the header Authorization: Bearer <token>."


def www_authenticate(resource_path: str) -> str:
    return (
        f'Bearer error="invalid_token", '
        f'resource_metadata="{settings.BASE_URL}/.well-known/oauth-protected-resource/{resource_path}"'
    )


def invalid_token(resource_path: str, message: str = INVALID_MESSAGE) -> ApiError:
    return ApiError("invalid_token", message, headers={"WWW-Authenticate": www_authenticate(resource_path)})


def bearer_from_header(request) -> str | None:
    """The token of an ``Authorization: Bearer`` header; '' when the header is malformed."""
    header = request.META.get("HTTP_AUTHORIZATION")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip() or " " in token.strip():
        return ""
    return token.strip()


def resolve_api_key(request, secret: str, *, resource_path: str) -> Principal:
    key = apikey_get_by_secret(secret)
    now = timezone.now()
    if key is None or key.status_at(now) != key.LIVE or not key.user.is_active:
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


Resolver = Callable[..., Principal]

# prefix -> resolver; the OAuth app adds "sat_" when it is installed.
RESOLVERS: dict[str, Resolver] = {
    "sk_live_": resolve_api_key,
    "sk_test_": resolve_api_key,
}


def register_resolver(prefix: str, resolver: Resolver) -> None:
    RESOLVERS[prefix] = resolver


def resolve_bearer(request, secret: str, *, resource_path: str, budget_class: str | None = None) -> Principal:
    """The principal of a bearer secret; with ``budget_class``, that class's budgets are applied too.

    Budgets applied here are marked on the request (``ratelimit_charged``) so
    the view's throttle does not count the request twice. A well-formed secret
    is first looked up in the credential cache, which applies the budgets in
    the same store round trip; on a miss the database answers and the cache is
    filled in the round trip that applies the budgets.
    """
    try:
        match = next(((p, r) for p, r in RESOLVERS.items() if secret.startswith(p)), None)
        if match is None:
            raise invalid_token(resource_path)
        prefix, resolver = match
        store, cached = None, None
        if budget_class is not None and looks_like(secret, prefix):
            store, cached = credential_cache.lookup(
                request, secret, resource_path=resource_path, budget_class=budget_class
            )
            if isinstance(cached, Principal):
                request.ratelimit_charged = budget_class
                return cached
        principal = resolver(request, secret, resource_path=resource_path)
        if budget_class is None:
            return principal
        if store is None:
            ratelimit_class(request=request, name=budget_class, principal=principal)
        else:
            credential_cache.charge_and_fill(
                request, secret, store=store, miss=cached, principal=principal, resource_path=resource_path,
                name=budget_class,
            )  # fmt: skip
        request.ratelimit_charged = budget_class
        return principal
    except ApiError as error:
        if error.code != "invalid_token":
            raise
        if getattr(error, "counts_as_failed_lookup", True) is False:
            # A known token the user revoked (disconnect, password change): not
            # a guess, so it spends no failed-bearer budget (SPEC 8.3).
            raise
        # A presented credential failed lookup: it spends the source's
        # failed-bearer budget (SPEC 8.2), and 429 replaces 401 once spent.
        raise ratelimit_bearer_failure(request=request, error=error) from None
