"""Server-wide caps on work in flight (budgets ``Concurrency`` rows), in both stores alike.

A slot is taken without waiting, given back on release, and frees itself when
its holder never gives it back (a killed worker). The Redis store holds one
cap for every process sharing it; the in-process store is the quick start's.
"""

import pytest

from apps.ratelimit import conf
from apps.ratelimit.concurrency import Concurrency
from apps.ratelimit.exceptions import LimiterUnavailable
from apps.ratelimit.services import ratelimit_in_flight
from apps.ratelimit.stores.base import Store, StoreUnavailable
from apps.ratelimit.stores.memory import MemoryStore

from .redis_server import redis_store_or_skip

NOW = 1_800_000_000_000
CAP = Concurrency("test.in_flight", limit=2)


@pytest.fixture(params=["memory", "redis"])
def any_store(request):
    if request.param == "memory":
        return MemoryStore(key_prefix="slots")
    return redis_store_or_skip(request)


def test_at_most_limit_slots_at_once(any_store):
    first = any_store.slot_acquire(CAP.key, limit=2, ttl_ms=5_000, now_ms=NOW)
    second = any_store.slot_acquire(CAP.key, limit=2, ttl_ms=5_000, now_ms=NOW)
    assert first and second and first != second
    assert any_store.slot_acquire(CAP.key, limit=2, ttl_ms=5_000, now_ms=NOW) is None
    any_store.slot_release(CAP.key, first)
    assert any_store.slot_acquire(CAP.key, limit=2, ttl_ms=5_000, now_ms=NOW)
    assert any_store.slot_acquire(CAP.key, limit=2, ttl_ms=5_000, now_ms=NOW) is None


def test_a_slot_never_released_frees_itself_at_its_expiry(any_store):
    for _ in range(2):
        assert any_store.slot_acquire(CAP.key, limit=2, ttl_ms=5_000, now_ms=NOW)
    assert any_store.slot_acquire(CAP.key, limit=2, ttl_ms=5_000, now_ms=NOW + 4_999) is None
    assert any_store.slot_acquire(CAP.key, limit=2, ttl_ms=5_000, now_ms=NOW + 5_000)


def test_caps_are_independent_and_a_release_twice_frees_one_slot(any_store):
    token = any_store.slot_acquire("inflight:a", limit=1, ttl_ms=5_000, now_ms=NOW)
    assert any_store.slot_acquire("inflight:b", limit=1, ttl_ms=5_000, now_ms=NOW)
    assert any_store.slot_acquire("inflight:a", limit=1, ttl_ms=5_000, now_ms=NOW) is None
    any_store.slot_release("inflight:a", token)
    any_store.slot_release("inflight:a", token)
    other = any_store.slot_acquire("inflight:a", limit=1, ttl_ms=5_000, now_ms=NOW)
    assert other
    any_store.slot_release("inflight:a", token)  # a stale token does not free another holder's slot
    assert any_store.slot_acquire("inflight:a", limit=1, ttl_ms=5_000, now_ms=NOW) is None


def test_clear_frees_every_slot(any_store):
    assert any_store.slot_acquire(CAP.key, limit=1, ttl_ms=5_000, now_ms=NOW)
    any_store.clear()
    assert any_store.slot_acquire(CAP.key, limit=1, ttl_ms=5_000, now_ms=NOW)


# --- the service -----------------------------------------------------------------------------


def test_the_service_yields_false_at_once_when_every_slot_is_held(store):
    with ratelimit_in_flight(cap=CAP, hold_seconds=5) as first, ratelimit_in_flight(cap=CAP, hold_seconds=5) as second:
        assert first and second
        with ratelimit_in_flight(cap=CAP, hold_seconds=5) as third:
            assert third is False
    with ratelimit_in_flight(cap=CAP, hold_seconds=5) as again:
        assert again  # both were given back on leaving


def test_the_slot_is_given_back_when_the_work_raises(store):
    for _ in range(3):
        with pytest.raises(RuntimeError), ratelimit_in_flight(cap=Concurrency("x", limit=1), hold_seconds=5) as held:
            assert held
            raise RuntimeError("the fetch failed")


class DownStore(Store):
    def evaluate(self, checks, *, now_ms=None):
        raise StoreUnavailable("connection refused")

    def clear(self):
        raise StoreUnavailable("connection refused")


def test_store_down_fails_closed(monkeypatch):
    store = DownStore()
    monkeypatch.setattr(conf, "get_store", lambda: store)
    with pytest.raises(LimiterUnavailable), ratelimit_in_flight(cap=CAP, hold_seconds=5):
        pytest.fail("no work may start without a slot")


def test_a_disabled_limiter_holds_no_slot(settings, monkeypatch):
    settings.RATELIMIT = {**settings.RATELIMIT, "ENABLED": False}
    monkeypatch.setattr(conf, "get_store", lambda: pytest.fail("the store is not asked"))
    with ratelimit_in_flight(cap=CAP, hold_seconds=5) as held:
        assert held
