import pytest

from apps.ratelimit import conf
from apps.ratelimit.stores.memory import MemoryStore


class Clock:
    """A hand-driven clock in seconds."""

    def __init__(self, now: float = 1_800_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(clock, monkeypatch):
    """The limiter's store for this test: in-process, on the injected clock."""
    memory = MemoryStore(key_prefix="t", clock=clock)
    monkeypatch.setattr(conf, "get_store", lambda: memory)
    return memory
