"""The Redis Lua script and the in-process store agree on every sequence of requests.

Random sequences of batches (budgets, peeks, alert-only ceilings, back-offs)
and clock steps are replayed against both stores with the same injected clock.
"""

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.ratelimit.budgets import Budget
from apps.ratelimit.gcra import Check
from apps.ratelimit.stores.memory import MemoryStore

from .redis_server import cluster_wanted, redis_store_or_skip

BUDGETS = [
    Budget("a", burst=3, rate=3, period=60, key="ip"),
    Budget("b", burst=5, rate=2, period=10, key="ip"),
    Budget("c", burst=2, rate=2, period=60, key="ip", penalty=30),
    Budget("d", burst=2, rate=2, period=60, key="client", alert_only=True),
]

check = st.builds(
    lambda b, k, peek, cost: Check(BUDGETS[b], f"{BUDGETS[b].name}:{k}", cost=cost, peek=peek),
    st.integers(0, len(BUDGETS) - 1),
    # On a cluster the blocking budgets of one call share a slot (budgets.slot): one address a call.
    st.sampled_from(["x"] if cluster_wanted() else ["x", "y"]),
    st.booleans(),
    st.integers(1, 2),
)
step = st.tuples(st.integers(0, 15_000), st.lists(check, min_size=1, max_size=3, unique_by=lambda c: c.key))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=25))
def test_lua_and_python_agree(request, steps):
    redis_store = redis_store_or_skip(request)
    redis_store.key_prefix = f"eq-{time.monotonic_ns()}"
    memory = MemoryStore(key_prefix="eq")
    now = 1_800_000_000_000
    for delta, checks in steps:
        now += delta
        assert memory.evaluate(checks, now_ms=now) == redis_store.evaluate(checks, now_ms=now)
