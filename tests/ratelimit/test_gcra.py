"""GCRA arithmetic (burst, refill, tightest budget, all-or-nothing) on an injected clock.

The same cases run against the in-process store and the Redis Lua script, so
the two implementations cannot drift apart.
"""

import pytest

from apps.ratelimit import budgets
from apps.ratelimit.budgets import Budget
from apps.ratelimit.gcra import Check
from apps.ratelimit.limiter import Decision
from apps.ratelimit.stores.memory import MemoryStore

from .redis_server import redis_store_or_skip

T0 = 1_800_000_000_000  # ms

SIXTY = Budget("sixty", burst=60, rate=60, period=60, key="ip")
FIVE = Budget("five", burst=5, rate=5, period=60, key="ip")
ALERT = Budget("alert", burst=3, rate=3, period=60, key="client", alert_only=True)
LOCKOUT = Budget("lockout", burst=10, rate=10, period=60, key="ip", penalty=60)


@pytest.fixture(params=["memory", "redis"])
def any_store(request):
    if request.param == "memory":
        return MemoryStore(key_prefix="gcra")
    return redis_store_or_skip(request)


def hit(store, checks, at_ms):
    now, allowed, results = store.evaluate(checks, now_ms=at_ms)
    return Decision(allowed, now, tuple(checks), tuple(results))


def test_sixty_a_minute_is_a_burst_of_sixty_then_one_a_second(any_store):
    check = [Check(SIXTY, "sixty:a")]
    decisions = [hit(any_store, check, T0) for _ in range(61)]
    assert all(d.allowed for d in decisions[:60])
    assert [d.results[0].remaining for d in decisions[:3]] == [59, 58, 57]
    assert decisions[59].results[0].remaining == 0
    assert not decisions[60].allowed
    assert decisions[60].retry_after == 1
    # Refill is continuous: 999 ms later still nothing, at 1 s exactly one more.
    assert not hit(any_store, check, T0 + 999).allowed
    assert hit(any_store, check, T0 + 1000).allowed
    assert not hit(any_store, check, T0 + 1000).allowed
    # Ten seconds buy ten requests, not a whole new burst.
    later = [hit(any_store, check, T0 + 11_000) for _ in range(11)]
    assert sum(d.allowed for d in later) == 10


def test_a_full_window_of_rest_restores_the_whole_burst(any_store):
    check = [Check(FIVE, "five:a")]
    for _ in range(5):
        assert hit(any_store, check, T0).allowed
    assert not hit(any_store, check, T0).allowed
    assert [hit(any_store, check, T0 + 60_000).allowed for _ in range(6)] == [True] * 5 + [False]


def test_keys_are_independent(any_store):
    for _ in range(5):
        hit(any_store, [Check(FIVE, "five:a")], T0)
    assert not hit(any_store, [Check(FIVE, "five:a")], T0).allowed
    assert hit(any_store, [Check(FIVE, "five:b")], T0).allowed


def test_when_one_budget_denies_none_is_consumed(any_store):
    for _ in range(5):
        hit(any_store, [Check(FIVE, "five:x")], T0)
    both = [Check(SIXTY, "sixty:x"), Check(FIVE, "five:x")]
    for _ in range(10):
        denied = hit(any_store, both, T0)
        assert not denied.allowed
    # The sixty budget was never drawn on by the ten denied requests.
    assert hit(any_store, [Check(SIXTY, "sixty:x")], T0).results[0].remaining == 59


def test_the_tightest_budget_sets_the_headers(any_store):
    both = [Check(SIXTY, "sixty:t"), Check(FIVE, "five:t")]
    decision = hit(any_store, both, T0)
    headers = decision.headers()
    assert headers["RateLimit"] == "limit=5, remaining=4, reset=0"
    assert headers["RateLimit-Policy"] == "5;w=60"
    assert headers["X-RateLimit-Limit"] == "5"
    assert headers["X-RateLimit-Remaining"] == "4"
    assert headers["X-RateLimit-Reset"] == str(T0 // 1000)
    for _ in range(4):
        decision = hit(any_store, both, T0)
    # Spent: room for one more in 12 s (one unit of 5/min).
    assert decision.headers()["RateLimit"] == "limit=5, remaining=0, reset=12"
    assert decision.headers()["X-RateLimit-Reset"] == str(T0 // 1000 + 12)
    denied = hit(any_store, both, T0 + 2_500)
    assert not denied.allowed
    assert denied.headers()["RateLimit"] == "limit=5, remaining=0, reset=10"
    assert denied.retry_after == 10  # 9.5 s rounds up, never down


def test_retry_after_is_never_below_one(any_store):
    check = [Check(SIXTY, "sixty:r")]
    for _ in range(60):
        hit(any_store, check, T0)
    denied = hit(any_store, check, T0 + 990)
    assert not denied.allowed
    assert denied.results[0].wait_ms == 10
    assert denied.retry_after == 1


def test_token_flood_guard_bursts_600_then_two_a_second(any_store):
    check = [Check(budgets.TOKEN_FLOOD_IP, "flood:a")]
    assert budgets.TOKEN_FLOOD_IP.policy == "600;w=60"
    assert sum(hit(any_store, check, T0).allowed for _ in range(601)) == 600
    assert sum(hit(any_store, check, T0 + 10_000).allowed for _ in range(30)) == 20  # 120/min


def test_hourly_budget_policy_and_refill(any_store):
    check = [Check(budgets.REGISTER_IP_HOURLY, "reg:a")]
    assert budgets.REGISTER_IP_HOURLY.policy == "20;w=3600"
    assert sum(hit(any_store, check, T0).allowed for _ in range(21)) == 20
    assert not hit(any_store, check, T0 + 179_000).allowed
    assert hit(any_store, check, T0 + 180_000).allowed  # one every three minutes


def test_peek_tells_without_consuming(any_store):
    peek = [Check(FIVE, "five:p", peek=True)]
    for _ in range(20):
        assert hit(any_store, peek, T0).allowed
    assert hit(any_store, [Check(FIVE, "five:p")], T0).results[0].remaining == 4


def test_penalty_backs_off_for_the_whole_period(any_store):
    fail = [Check(LOCKOUT, "lock:a")]
    peek = [Check(LOCKOUT, "lock:a", peek=True)]
    for _ in range(9):
        hit(any_store, fail, T0)
    assert hit(any_store, peek, T0).allowed
    hit(any_store, fail, T0)  # the tenth failure starts the back-off
    denied = hit(any_store, peek, T0)
    assert not denied.allowed
    assert denied.retry_after == 60
    # Ordinary refill would have allowed one after 6 s; the back-off holds for 60 s.
    assert not hit(any_store, peek, T0 + 59_999).allowed
    assert hit(any_store, peek, T0 + 60_000).allowed


def test_alert_only_budgets_never_block_and_report_crossing_once(any_store):
    checks = [Check(ALERT, "alert:c"), Check(FIVE, "five:c")]
    decisions = [hit(any_store, checks, T0) for _ in range(5)]
    assert all(d.allowed for d in decisions)
    assert [d.results[0].crossed for d in decisions] == [False, False, False, True, False]
    # Its window over, a new crossing is reported again.
    for _ in range(3):
        hit(any_store, checks, T0 + 60_000)
    assert hit(any_store, checks, T0 + 60_000).results[0].crossed


def test_alert_budgets_stay_out_of_the_headers(any_store):
    decision = hit(any_store, [Check(ALERT, "alert:h"), Check(SIXTY, "sixty:h")], T0)
    assert decision.headers()["RateLimit-Policy"] == "60;w=60"
