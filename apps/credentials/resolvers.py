"""Resolution of a bearer secret into a Principal, shared by /v1 and /mcp.

Which kinds of credential exist is configuration, not imports:
``settings.BEARER_RESOLVERS`` maps a secret's prefix to the dotted path of
the function that resolves it and the resources it may serve, e.g.::

    {"sk_live_": {"resolve": "apps.apikeys.bearer.resolve", "resources": ["v1"]}}

So this app never imports the apps that issue credentials, and a secret whose
prefix has no resolver for the resource asked (an API key at /mcp) is refused
before any lookup. A resolver is ``fn(request, secret, *, resource_path) ->
Principal`` and raises ApiError. An entry may also name ``stamp``,
``fn(credential_id)``, called when a cached credential falls due for its
last-use stamp.
"""

from dataclasses import dataclass
from functools import cache

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string

from apps.core import metrics
from apps.core.errors import ApiError
from apps.core.ids import looks_like
from apps.core.request_context import notes
from apps.ratelimit.public import ratelimit_bearer_failure, ratelimit_class

from . import cache as credential_cache
from .challenges import KnownRevokedToken, invalid_token
from .principal import Principal


@dataclass(frozen=True)
class Resolver:
    prefix: str
    resolve: object
    resources: frozenset
    stamp: object = None


@cache
def resolvers() -> tuple[Resolver, ...]:
    loaded = []
    for prefix, entry in settings.BEARER_RESOLVERS.items():
        loaded.append(
            Resolver(
                prefix=prefix,
                resolve=import_string(entry["resolve"]),
                resources=frozenset(entry["resources"]),
                stamp=import_string(entry["stamp"]) if entry.get("stamp") else None,
            )
        )
    return tuple(loaded)


@receiver(setting_changed)
def _reset(*, setting, **kwargs):
    if setting == "BEARER_RESOLVERS":
        resolvers.cache_clear()


def resolver_for(secret: str) -> Resolver | None:
    return next((r for r in resolvers() if secret.startswith(r.prefix)), None)


def _noted(request, principal: Principal) -> Principal:
    noted = notes(request)
    noted.principal_kind, noted.principal_id = principal.kind, principal.credential_id
    noted.principal_user_id = str(getattr(principal.user, "pk", "") or "")
    return principal


def resolve_bearer(request, secret: str, *, resource_path: str, budget_class: str | None = None) -> Principal:
    """The principal of a bearer secret; with ``budget_class``, that class's budgets are applied too.

    Budgets applied here are noted on the request (``ratelimit_charged``) so
    the view's throttle does not count the request twice. A well-formed secret
    is first looked up in the credential cache, which applies the budgets in
    the same store round trip; on a miss the database answers and the cache is
    filled in the round trip that applies the budgets.
    """
    try:
        found = resolver_for(secret)
        if found is None or resource_path not in found.resources:
            raise invalid_token(resource_path)
        store, cached = None, None
        if budget_class is not None and looks_like(secret, found.prefix):
            store, cached = credential_cache.lookup(
                request, secret, resource_path=resource_path, budget_class=budget_class, stamp=found.stamp
            )
            if store is not None:
                metrics.count_credential_cache(hit=isinstance(cached, Principal))
            if isinstance(cached, Principal):
                notes(request).ratelimit_charged = budget_class
                return _noted(request, cached)
        principal = _noted(request, found.resolve(request, secret, resource_path=resource_path))
        if budget_class is None:
            return principal
        if store is None:
            ratelimit_class(request=request, name=budget_class, principal=principal)
        else:
            credential_cache.charge_and_fill(
                request, secret, store=store, miss=cached, principal=principal, resource_path=resource_path,
                name=budget_class,
            )  # fmt: skip
        notes(request).ratelimit_charged = budget_class
        return principal
    except KnownRevokedToken:
        raise
    except ApiError as error:
        if error.code != "invalid_token":
            raise
        # A presented credential failed lookup: it spends the source's
        # failed-bearer budget (docs/spec.md 8.2), and 429 replaces 401 once spent.
        raise ratelimit_bearer_failure(request=request, error=error) from None
