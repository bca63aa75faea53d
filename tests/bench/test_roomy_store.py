"""bench/roomy_store.py: the production store's budgets, a thousand times larger, nothing else changed."""

from apps.ratelimit import budgets
from apps.ratelimit.gcra import Check
from bench.roomy_store import FACTOR, roomy, roomy_all, roomy_checks


def test_every_budget_keeps_its_key_period_and_flags_with_larger_numbers():
    for budget in (budgets.READS_PRINCIPAL, budgets.TOKEN_FLOOD_IP, budgets.EXCHANGE_FAILURES_IP):
        larger = roomy(budget)
        assert (larger.burst, larger.rate) == (budget.burst * FACTOR, budget.rate * FACTOR)
        assert (larger.name, larger.key, larger.period, larger.penalty, larger.alert_only) == (
            budget.name,
            budget.key,
            budget.period,
            budget.penalty,
            budget.alert_only,
        )


def test_checks_and_classes_are_scaled_alike():
    (check,) = roomy_checks([Check(budgets.READS_USER, "reads.user:1", peek=True)])
    assert check.budget == roomy(budgets.READS_USER)
    assert (check.key, check.peek, check.cost) == ("reads.user:1", True, 1)
    assert roomy_all(budgets.CLASSES["reads"]) == tuple(roomy(b) for b in budgets.CLASSES["reads"])


def test_the_cluster_store_is_made_roomy_the_same_way():
    from apps.ratelimit.stores.redis_cluster import RedisClusterStore
    from bench.roomy_store import Roomy, RoomyRedisClusterStore, RoomyRedisStore

    for store, production in ((RoomyRedisStore, None), (RoomyRedisClusterStore, RedisClusterStore)):
        for method in ("evaluate", "credential_lookup", "credential_fill"):
            assert getattr(store, method) is getattr(Roomy, method)
        if production:
            assert issubclass(store, production)
