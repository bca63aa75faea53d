"""What the rest of the service calls. Each call is one store round trip.

Every function raises ``RateLimited`` (429) when a budget is spent and
``LimiterUnavailable`` (503, ``Retry-After: 5``) when the store cannot be
reached; both are ApiErrors, rendered as the envelope by DRF's handler and by
RateLimitMiddleware (which uses the RFC 6749 shape on /oauth/*). The decision
is kept on the request and RateLimitMiddleware writes its headers.

``request`` may be omitted inside a request served through
RateLimitMiddleware (oauthlib validators do not see the Django request).
"""

import contextlib
import hashlib
import json
import logging
from dataclasses import replace

from apps.core.errors import ApiError
from apps.core.request_context import current_request

from . import budgets as table
from . import conf
from .concurrency import Concurrency
from .exceptions import LimiterUnavailable, RateLimited
from .gcra import Check
from .limiter import (
    Decision,
    build_checks,
    decide,
    enabled,
    evaluate,
    short,
    source_key,
    store_call,
    subject_of,
)
from .stores.base import CredentialMiss, StoreUnavailable

logger = logging.getLogger(__name__)


def _request(request):
    return request if request is not None else current_request.get()


def ratelimit_class(*, request, name: str, principal=None, user=None, number: str | None = None) -> Decision | None:
    """Consume one request of budget class ``name`` (budgets.CLASSES) for an authenticated caller."""
    subject = subject_of(_request(request), principal=principal, user=user, number=number)
    return evaluate(request, build_checks(table.CLASSES[name], subject))


def ratelimit_numbers(*, request, name: str, numbers) -> Decision | None:
    """Consume one request of budget class ``name`` for each of ``numbers`` (an opaque id each), in one
    store call: a read of several numbers' data spends each number's budget, or none of them."""
    checks = []
    for number in dict.fromkeys(numbers):
        checks += build_checks(table.CLASSES[name], subject_of(None, number=number))
    return evaluate(_request(request), checks)


def ratelimit_bearer_failure(*, request, error: ApiError) -> ApiError:
    """A presented bearer credential failed lookup: the error to answer with.

    Consumes the failed-bearer budget of the source address (60/min). While it
    lasts the original 401 is returned; once spent, 429 ``rate_limited``;
    503 when the store is down (fail closed).
    """
    subject = subject_of(request)
    try:
        evaluate(request, build_checks(table.CLASSES["bearer_failure"], subject))
    except (RateLimited, LimiterUnavailable) as limited:
        return limited
    return error


def ratelimit_path(*, request) -> Decision | None:
    """Budgets applied by path before any view (metadata, authorize, register, token flood)."""
    name = table.path_class(request.path)
    if name is None:
        return None
    subject = subject_of(request)
    checks = build_checks(table.CLASSES[name], subject)
    if table.is_backoff_path(request.path):
        # A source backed off after failed exchanges is refused before any grant work.
        checks += build_checks((table.EXCHANGE_FAILURES_IP,), subject, peek=True, advertise=False)
    return evaluate(request, checks)


def ratelimit_exchange_failed(*, client_id: str | None = None, request=None) -> None:
    """Record a failed token exchange (invalid_grant) from this source.

    10 a minute from one address start a 60 s back-off (the token endpoint
    then answers 429 before any grant work); 1,000 a minute for one client id
    only log. Not for a known token revoked by a disconnect (docs/spec.md 8.3).
    Never raises: the failure response is already decided.
    """
    request = _request(request)
    subject = subject_of(request, client_id=client_id)
    checks = build_checks(table.CLASSES["exchange_failure"], subject, advertise=False)
    try:
        evaluate(request, checks, record=False)
    except RateLimited:
        pass
    except LimiterUnavailable:
        logger.warning("failed token exchange not counted: rate limiter store unavailable")


def ratelimit_refresh_succeeded(*, family_id: str, client_id: str | None, request=None) -> Decision | None:
    """Count one successful refresh, before its writes, in one store call: its grant family
    (10 a minute; more raise RateLimited, 429 ``temporarily_unavailable`` for that family
    only, the decision setting the headers) and its client id (600 a minute, alert only)."""
    request = _request(request)
    checks = build_checks(table.CLASSES["grant_family"], subject_of(request, family_id=family_id), advertise=False)
    checks += build_checks(table.CLASSES["exchange_success"], subject_of(None, client_id=client_id), advertise=False)
    return evaluate(request, checks)


def ratelimit_exchange_succeeded(*, client_id: str | None, request=None) -> None:
    """A token request succeeded: 600 a minute for one client id only log. Never raises."""
    request = _request(request)
    checks = build_checks(table.CLASSES["exchange_success"], subject_of(None, client_id=client_id))
    try:
        evaluate(request, checks, record=False)
    except LimiterUnavailable:
        logger.warning("successful token exchange not counted: rate limiter store unavailable")


def ratelimit_count(*, key: str, window_seconds: int) -> int:
    """One more under ``key`` in the shared store: the count within ``window_seconds`` of its first.

    For rules that count events rather than spend a budget (failed exchanges per credential).
    Raises LimiterUnavailable when the store cannot answer.
    """
    with store_call():
        return conf.get_store().count(f"count:{key}", window_ms=window_seconds * 1000)


# --- Credentials cached in the store (apps/credentials/cache.py) -----------
# A cached credential's payload carries its ``subject``: the principal, user and
# client dimensions its budgets are keyed by.


def credential_store():
    """The store when it also caches credentials (shared by every process), else None."""
    if not enabled():
        return None
    with store_call():
        store = conf.get_store()
    return store if store.supports_credential_cache else None


def ratelimit_cached_credential(*, request, store, digest: str, audience: str, name: str, on_hit=None):
    """One round trip: the credential cached under ``digest`` and, when found, budget class ``name`` applied.

    Returns a CredentialMiss (with the store time taken before the caller reads
    the database) or ``(payload, stamped)``; raises RateLimited when a budget
    refuses a found credential, after ``on_hit(payload, stamped)`` has run (what
    a found credential does whether or not it is refused).
    """
    source = source_key(request)
    with store_call():
        answer = store.credential_lookup(digest=digest, audience=audience, ip=source, budgets=table.CLASSES[name])
    if isinstance(answer, CredentialMiss):
        return answer
    payload = json.loads(answer.payload)
    if on_hit is not None:
        on_hit(payload, answer.stamped)
    subject = {**payload["subject"], table.IP: source}
    checks = build_checks(table.CLASSES[name], subject)
    decide(request, checks, answer.now_ms, answer.allowed, answer.results)
    return payload, answer.stamped


def ratelimit_class_and_cache(*, request, store, name: str, principal, miss: CredentialMiss, entry: dict):
    """Budget class ``name`` for a credential just read from the database, caching it in the same round trip.

    ``entry`` holds what credential_fill takes (digest, user_id, control,
    payload, ttl_ms, used_key, used_ttl_ms); the store writes it only if no
    revocation moved an epoch since ``miss`` was taken.
    """
    checks = build_checks(table.CLASSES[name], subject_of(request, principal=principal))
    with store_call():
        _, now_ms, allowed, results = store.credential_fill(miss_us=miss.miss_us, checks=checks, **entry)
    return decide(request, checks, now_ms, allowed, results)


def credential_cache_revoke(*, user_id: str | None, fail_closed: bool) -> None:
    """Kill the cached credentials of one user, or of everyone (``None``).

    With ``fail_closed`` an unreachable store raises LimiterUnavailable (503),
    so the revoking transaction rolls back rather than commit a revocation that
    cached entries would not see; otherwise it is logged at ERROR.
    """
    with store_call():
        store = conf.get_store()
    if not store.supports_credential_cache:
        return
    try:
        store.credential_revoke(user_id=user_id)
    except StoreUnavailable as exc:
        logger.error("cached credentials of %s not revoked: limiter store unavailable: %s", user_id or "everyone", exc)
        if fail_closed:
            raise LimiterUnavailable(int(conf.get("UNAVAILABLE_RETRY_AFTER"))) from None


# --- Sign-in and password reset (pages; budgets.py "Sign-in and password reset") ----


def account_key(name: str) -> str:
    """The ACCOUNT key of an account name typed on a page: a digest of the email as sign-in reads it.

    Case-insensitive, as sign-in looks emails up; a digest, so no email is kept in the store.
    """
    return hashlib.sha256(name.strip().lower().encode()).hexdigest()[:32]


def _signin_checks(request, account: str, *, cost: int = 1) -> list[Check]:
    subject = {table.IP: source_key(request), table.ACCOUNT: account_key(account)}
    return [replace(check, cost=cost) for check in build_checks(table.CLASSES["signin_failure"], subject)]


def ratelimit_signin_attempt(*, request, account: str) -> None:
    """Reserve one failed sign-in of the source address and of ``account``, before the password is checked.

    Raises RateLimited when either budget is spent (10 a minute per address, then a
    60 s back-off; 5 per 15 minutes per account): the password is then not checked at
    all, so the right one waits too. LimiterUnavailable when the store cannot answer:
    sign-in fails closed. Reserving before the check, rather than counting after it,
    keeps parallel guesses within the budget.
    """
    evaluate(request, _signin_checks(request, account), record=False)


def ratelimit_signin_succeeded(*, request, account: str) -> None:
    """The password was right: give back what ratelimit_signin_attempt reserved. Never raises.

    Each budget on its own: one that the reserved unit sent into its back-off is
    refused the refund (a back-off is not shortened), the other still gets its unit back.
    """
    for check in _signin_checks(request, account, cost=-1):
        try:
            evaluate(request, [check], record=False)
        except RateLimited:
            pass
        except LimiterUnavailable:
            logger.warning("successful sign-in not refunded: rate limiter store unavailable")
            return


def ratelimit_password_reset(*, request, account: str) -> None:
    """Count one password-reset request for the source address and for ``account``.

    Every request counts, whether or not an account has the address, so a refusal
    says nothing about which accounts exist. Raises RateLimited past 3 an hour per
    account or 10 an hour per address; LimiterUnavailable when the store cannot answer.
    """
    subject = {table.IP: source_key(request), table.ACCOUNT: account_key(account)}
    evaluate(request, build_checks(table.CLASSES["password_reset"], subject), record=False)


# --- Client metadata documents (apps/oauth/client_metadata) ----------------------


def ratelimit_document_fetch(*, host: str, url: str) -> None:
    """Spend one fetch of a client metadata document from ``host``, unless ``url`` failed within the minute.

    Raises RateLimited when the host's budget is spent or the URL's last fetch
    failed less than a minute ago (nothing is spent then), LimiterUnavailable
    when the store cannot answer.
    """
    subject = {table.HOST: host.lower(), table.URL: short(url)}
    checks = build_checks(table.CLASSES["cimd_fetch"], subject, advertise=False)
    checks += build_checks(table.CLASSES["cimd_fetch_failed"], subject, peek=True, advertise=False)
    evaluate(None, checks, record=False)


def ratelimit_document_fetch_failed(*, url: str) -> None:
    """A fetch of ``url`` failed: it is not fetched again for a minute. Never raises."""
    checks = build_checks(table.CLASSES["cimd_fetch_failed"], {table.URL: short(url)}, advertise=False)
    try:
        evaluate(None, checks, record=False)
    except RateLimited:
        pass  # already failing: the minute runs from the first failure
    except LimiterUnavailable:
        logger.warning("failed client metadata fetch not recorded: rate limiter store unavailable")


@contextlib.contextmanager
def ratelimit_in_flight(*, cap: Concurrency, hold_seconds: float):
    """Yield True while holding one of ``cap``'s slots, or False at once when every slot is held.

    Never waits for a slot. ``hold_seconds`` bounds how long a slot outlives a
    holder that never gives it back (a killed worker); it must exceed the
    work's own deadline. Raises LimiterUnavailable when the store cannot
    answer: fail closed.
    """
    if not enabled():
        yield True
        return
    with store_call():
        store = conf.get_store()
        token = store.slot_acquire(cap.key, limit=cap.limit, ttl_ms=max(1, int(hold_seconds * 1000)))
    if token is None:
        yield False
        return
    try:
        yield True
    finally:
        try:
            store.slot_release(cap.key, token)
        except StoreUnavailable as exc:  # the slot expires on its own
            logger.warning("in-flight slot of %s not released: limiter store unavailable: %s", cap.name, exc)


def ratelimit_store_ready() -> bool:
    """Whether the budgets' store answers now (the readiness check: a node whose Redis is gone
    refuses every request, so it is not ready). Costs one round trip; spends no budget."""
    try:
        conf.get_store().ping()
    except StoreUnavailable as exc:
        logger.warning("readiness: the rate limiter's store does not answer: %s", exc)
        return False
    return True
