"""The limiter of a test: its in-process store on a hand-driven clock, and a store that cannot be reached."""

import pytest

from apps.ratelimit import conf
from apps.ratelimit.stores.base import Store, StoreUnavailable
from apps.ratelimit.stores.memory import MemoryStore


class Clock:
    """A hand-driven clock in seconds, for the in-process store."""

    def __init__(self, now: float = 1_800_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class DownStore(Store):
    """A limiter store that cannot be reached."""

    def evaluate(self, checks, *, now_ms=None):
        raise StoreUnavailable("connection refused")

    def clear(self):
        raise StoreUnavailable("connection refused")


def memory_limiter(monkeypatch, clock: Clock | None = None) -> MemoryStore:
    """The limiter's store for this test: in-process, on ``clock`` (its ``clock``; a new one by default)."""
    memory = MemoryStore(key_prefix="t", clock=clock or Clock())
    monkeypatch.setattr(conf, "get_store", lambda: memory)
    return memory


# Fixtures for a test module or conftest to import: ``clock`` and the ``store`` on it.
@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(clock, monkeypatch):
    return memory_limiter(monkeypatch, clock)
