"""The OAuth token endpoint's lockouts (docs/spec.md 8.3), shaped for apps/oauth/ratelimit_hooks.py.

Each returns None to let the request through, or the 429/503
``temporarily_unavailable`` response to answer instead. The per-IP flood
guard and the failed-exchange back-off need no hook: RateLimitMiddleware
applies them by path before the view runs.
"""

from apps.core.request_context import current_request

from . import services
from .exceptions import LimiterUnavailable, RateLimited
from .middleware import render


def grant_family_response(request, *, family_id) -> object | None:
    """Count a refresh for its grant family; past 10 a minute, 429 for that family only.

    ``request`` may be None inside oauthlib (the validator): the request being served is used.
    """
    if family_id is None:
        return None  # unknown refresh token: the exchange fails and is counted as a failure
    if request is None:
        request = current_request.get()
    try:
        services.ratelimit_grant_family(request=request, family_id=str(family_id))
    except (RateLimited, LimiterUnavailable) as error:
        return render(request, error)
    return None


def exchange_failed(request, *, client_id: str | None) -> None:
    services.ratelimit_exchange_failed(request=request, client_id=client_id)


def exchange_succeeded(request, *, client_id: str | None) -> None:
    services.ratelimit_exchange_succeeded(request=request, client_id=client_id)
