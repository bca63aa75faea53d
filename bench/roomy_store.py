"""The production Redis store with every budget a thousand times larger (bench only: RATELIMIT_STORE).

The phase 2 read cases read ten accounts with large histories as fast as the machine
serves them, far past one account's 120 reads a minute. This store keeps the limiter's
whole cost: the same scripts, the same keys per principal, user and client, the same
round trip per request and the same GCRA arithmetic in Redis. Only the numbers each
budget passes are larger, so nothing is denied and no case measures refusals.
"""

import dataclasses
import functools

from apps.ratelimit.stores.redis import RedisStore
from apps.ratelimit.stores.redis_cluster import RedisClusterStore

FACTOR = 1000


@functools.cache
def roomy(budget):
    return dataclasses.replace(budget, burst=budget.burst * FACTOR, rate=budget.rate * FACTOR)


@functools.cache
def roomy_all(budgets: tuple) -> tuple:
    return tuple(roomy(budget) for budget in budgets)


def roomy_checks(checks) -> list:
    return [dataclasses.replace(check, budget=roomy(check.budget)) for check in checks]


class Roomy:
    """Every budget a store is given, a thousand times larger, before the store's own work."""

    def evaluate(self, checks, *, now_ms=None):
        return super().evaluate(roomy_checks(checks), now_ms=now_ms)

    def credential_lookup(self, *, budgets, **kwargs):
        return super().credential_lookup(budgets=roomy_all(tuple(budgets)), **kwargs)

    def credential_fill(self, *, checks, **kwargs):
        return super().credential_fill(checks=roomy_checks(checks), **kwargs)


class RoomyRedisStore(Roomy, RedisStore):
    pass


class RoomyRedisClusterStore(Roomy, RedisClusterStore):
    """The same on a Redis Cluster (bench/nodes.py): the cluster store's scripts, slots and round trips."""
