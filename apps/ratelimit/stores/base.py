"""The interface every limiter store implements (chosen by ``RATELIMIT["STORE"]``)."""

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from ..gcra import Check, Result


class StoreUnavailable(Exception):
    """The store could not be reached or did not answer in time."""


@dataclass(frozen=True)
class CredentialMiss:
    """No usable cached credential; ``miss_us`` is the store's time before the database is read."""

    miss_us: int


@dataclass(frozen=True)
class CredentialHit:
    """A cached credential and the budgets already applied to it in the same call."""

    payload: bytes
    stamped: bool  # this request is the first use of an API key this minute
    now_ms: int
    allowed: bool
    results: list


class Store(ABC):
    """Evaluates a batch of budget checks atomically.

    ``evaluate`` returns ``(now_ms, allowed, results)`` where ``now_ms`` is the
    store's clock (the one shared by every server process), ``allowed`` is
    true when every blocking check allowed, and ``results`` lines up with
    ``checks``. It raises StoreUnavailable when it cannot answer; callers fail
    closed.
    """

    def __init__(self, *, key_prefix: str = "rl", **options):
        self.key_prefix = key_prefix

    def full_key(self, key: str) -> str:
        return f"{self.key_prefix}:{key}"

    @abstractmethod
    def evaluate(self, checks: Sequence[Check], *, now_ms: int | None = None) -> tuple[int, bool, list[Result]]: ...

    # A store shared by every server process may also cache credentials
    # (apps/credentials/cache.py); one in a single process may not, because a
    # revocation seen by one process would not reach the others.
    supports_credential_cache = False

    @abstractmethod
    def clear(self) -> None:
        """Forget every budget under this store's prefix (tests, operators)."""

    def ping(self) -> None:
        """Raise StoreUnavailable unless the store answers now (the readiness check); one in this
        process always does."""
        return None

    # In-flight slots (services.ratelimit_in_flight): a cap on work in progress.
    def slot_acquire(self, key: str, *, limit: int, ttl_ms: int, now_ms: int | None = None) -> str | None:
        """Take one of ``limit`` slots under ``key`` for at most ``ttl_ms``: a token to release it, or None when full.

        Slots past their expiry are free again, so a holder that dies gives its slot back.
        """
        raise StoreUnavailable(f"{type(self).__name__} holds no in-flight slots")

    def slot_release(self, key: str, token: str) -> None:
        raise StoreUnavailable(f"{type(self).__name__} holds no in-flight slots")

    def count(self, key: str, *, window_ms: int) -> int:
        """Add one to the count under ``key`` and return it; a count lives ``window_ms`` from its first unit."""
        raise StoreUnavailable(f"{type(self).__name__} keeps no counts")
