"""The interface every limiter store implements (chosen by ``RATELIMIT["STORE"]``)."""

from abc import ABC, abstractmethod
from collections.abc import Sequence

from ..gcra import Check, Result


class StoreUnavailable(Exception):
    """The store could not be reached or did not answer in time."""


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

    @abstractmethod
    def clear(self) -> None:
        """Forget every budget under this store's prefix (tests, operators)."""
