"""The token endpoint's lockouts (docs/spec.md 3.3, 8.3) and its success budgets.

- A failed exchange counts against the credential presented (three within an
  hour revoke it and its whole grant family) and against its source address
  (ten a minute: a 60 s back-off, applied by path before any grant work) and
  client id (alert only). A known code or token the user revoked counts for
  nothing: it is not a guess.
- A successful refresh spends its grant family's budget (ten a minute; more is
  429 for that family) and its client's alert-only ceiling in ONE store call,
  made by the validator once every check has passed and before any write.
"""

import logging

from apps.core.ids import digest
from apps.ratelimit.public import (
    ratelimit_count,
    ratelimit_exchange_failed,
    ratelimit_exchange_succeeded,
    ratelimit_refresh_succeeded,
)

from ..models import Grant, RefreshToken
from .revocation import family_revoke

log = logging.getLogger(__name__)

FAILED_EXCHANGE_LIMIT = 3
FAILED_EXCHANGE_WINDOW = 3600


def refresh_succeeding(*, family, client_id: str) -> None:
    """A refresh that passed every check: its family's and client's budgets, one store round trip.

    Raises RateLimited (429 for that family) or LimiterUnavailable (503); the
    caller's transaction then rolls back, so a refused refresh leaves the token as it was.
    """
    ratelimit_refresh_succeeded(family_id=str(family), client_id=client_id)


def code_exchange_succeeded(request, *, client_id: str) -> None:
    """A code exchanged for tokens: the client's alert-only ceiling (never refuses)."""
    ratelimit_exchange_succeeded(request=request, client_id=client_id)


def exchange_failed(request, *, grant_type: str, credential: str, client_id: str | None) -> None:
    """A failed exchange with a credential the user did not revoke: counts per credential and per source."""
    try:
        exchange_failure_record(grant_type=grant_type, credential=credential)
    except Exception:  # the answer stays invalid_grant; a store outage is the limiter's to report
        log.exception("could not record a failed exchange")
    ratelimit_exchange_failed(request=request, client_id=client_id)


def failure_key(credential_digest: str) -> str:
    return f"oauth:failed-exchange:{credential_digest}"


def exchange_failure_record(*, grant_type: str, credential: str) -> None:
    """Count a failed exchange against the code or refresh token presented.

    The third failure within an hour revokes that credential and its whole
    grant family (docs/spec.md 3.3). The count lives in the limiter's shared store, keyed by
    the credential's digest, so an unknown credential costs no database write.
    """
    credential_digest = digest(credential)
    count = ratelimit_count(key=failure_key(credential_digest), window_seconds=FAILED_EXCHANGE_WINDOW)
    if count < FAILED_EXCHANGE_LIMIT:
        return
    if grant_type == "authorization_code":
        family = Grant.objects.filter(code=credential_digest).values_list("family", flat=True).first()
    else:
        family = (
            RefreshToken.objects.filter(token_checksum=credential_digest).values_list("token_family", flat=True).first()
        )
    if family is not None:
        log.warning("three failed exchanges with one credential: revoking grant family %s", family)
        family_revoke(family=family)
