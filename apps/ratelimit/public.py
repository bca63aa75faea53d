"""What other apps may use of the limiter (the only module they import; .importlinter).

- ``budgets``: the one table of spec section 8's budgets; ``conf``: the limiter's settings.
- The ``ratelimit_*`` functions: each spends the budgets of one kind of request and raises
  ``RateLimited`` (or ``LimiterUnavailable``, failing closed) when one is spent.
- The credential cache's store (``credential_store``, ``ratelimit_cached_credential``,
  ``ratelimit_class_and_cache``, ``credential_cache_revoke``, ``CredentialMiss``,
  ``subject_of``): opaque entries the limiter keeps beside the budgets they are spent with.
- ``render_refusal(request, error)`` and ``wait_phrase(seconds)``: a refusal as a page or a sentence.

Stores, the GCRA and the Lua scripts stay inside: the limiter is swapped by settings
(``RATELIMIT["STORE"]``), never by an import.
"""

from . import budgets, conf
from .exceptions import LimiterUnavailable, RateLimited
from .limiter import subject_of
from .middleware import render as render_refusal
from .middleware import wait_phrase
from .services import (
    credential_cache_revoke,
    credential_store,
    ratelimit_bearer_failure,
    ratelimit_cached_credential,
    ratelimit_class,
    ratelimit_class_and_cache,
    ratelimit_count,
    ratelimit_document_fetch,
    ratelimit_document_fetch_failed,
    ratelimit_exchange_failed,
    ratelimit_exchange_succeeded,
    ratelimit_in_flight,
    ratelimit_numbers,
    ratelimit_password_reset,
    ratelimit_refresh_succeeded,
    ratelimit_signin_attempt,
    ratelimit_signin_succeeded,
    ratelimit_store_ready,
)
from .stores.base import CredentialMiss

__all__ = [
    "CredentialMiss",
    "LimiterUnavailable",
    "RateLimited",
    "budgets",
    "conf",
    "credential_cache_revoke",
    "credential_store",
    "ratelimit_bearer_failure",
    "ratelimit_cached_credential",
    "ratelimit_class",
    "ratelimit_class_and_cache",
    "ratelimit_count",
    "ratelimit_document_fetch",
    "ratelimit_document_fetch_failed",
    "ratelimit_exchange_failed",
    "ratelimit_exchange_succeeded",
    "ratelimit_in_flight",
    "ratelimit_numbers",
    "ratelimit_password_reset",
    "ratelimit_refresh_succeeded",
    "ratelimit_signin_attempt",
    "ratelimit_signin_succeeded",
    "ratelimit_store_ready",
    "render_refusal",
    "subject_of",
    "wait_phrase",
]
