"""Call sites the rate limiter fills in.

Each hook returns ``None`` to let the request through, or an HttpResponse
(429/503 ``temporarily_unavailable`` with ``Retry-After``) to answer instead.
They are called before any grant work, so a backed-off source costs nothing.
The grant-family hook is the exception: the validator calls it once every
check of a refresh has passed, just before the rotation's writes (only
successful token requests count, docs/spec.md 8.3), and it raises ``Refused`` since
oauthlib's callbacks cannot answer.

The per-IP budgets of /oauth/token, /oauth/revoke and /oauth/authorize (flood
guard, failed-exchange back-off, 30/min authorize) are applied by
apps.ratelimit's RateLimitMiddleware by path, before the view runs; their
hooks here stay no-ops so nothing is counted twice.
"""

from apps.ratelimit import oauth as limits


def before_token_request(request):
    """Per-IP failed-exchange back-off and the token flood guard (docs/spec.md 8.2, 8.3).

    Done by RateLimitMiddleware.
    """
    return None


def before_revoke_request(request):
    """Token flood guard for /oauth/revoke (docs/spec.md 8.2): done by RateLimitMiddleware."""
    return None


def before_authorize_request(request):
    """Authorize budget: 30/min per IP (docs/spec.md 8.2): done by RateLimitMiddleware."""
    return None


class Refused(Exception):
    """A hook called inside the exchange refused the request; the view answers ``response``.

    oauthlib calls the validator, which cannot return a response, so this is
    raised instead; the view's transaction then rolls back whatever was read or locked.
    """

    def __init__(self, response):
        super().__init__(response.status_code)
        self.response = response


def before_grant_family_refresh(*, family) -> None:
    """Successful token requests per grant family: 10/min (docs/spec.md 8.3).

    Called by the validator once the refresh has passed every check (its family
    is on the token row already read, so it costs no query of its own), before
    any write. A failed refresh, a reused token and a token the user revoked by
    disconnecting spend nothing of it. Raises Refused.
    """
    response = limits.grant_family_response(None, family_id=family)
    if response is not None:
        raise Refused(response)


def token_exchange_failed(request, *, client_id: str | None) -> None:
    """A failed exchange: feeds the per-IP back-off and the per-client alert."""
    limits.exchange_failed(request, client_id=client_id)


def token_exchange_succeeded(request, *, client_id: str, family) -> None:
    """A successful token request: feeds the per-client alert (the family was counted before any write)."""
    limits.exchange_succeeded(request, client_id=client_id)
