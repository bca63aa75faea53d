"""Redis store: one EVALSHA per request evaluates every budget atomically.

The script reads the Redis clock, so every server process sharing the Redis
shares one budget and one notion of now. Timeouts are short and there are no
client-side retries: an unreachable Redis must turn into a quick 503, and the
connection pool reconnects on the next request once Redis is back.

All keys of one call must live on one node (Redis Cluster would need hash
tags); a single primary with replicas is the supported topology.
"""

from collections.abc import Sequence
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from .. import gcra
from .base import Store, StoreUnavailable

SCRIPT = (Path(__file__).with_name("redis_gcra.lua")).read_text()


class RedisStore(Store):
    def __init__(self, *, url: str, key_prefix: str = "rl", socket_timeout: float = 0.5, **options):
        super().__init__(key_prefix=key_prefix)
        self.client = redis.Redis.from_url(
            url,
            socket_timeout=socket_timeout,
            socket_connect_timeout=socket_timeout,
            retry=Retry(NoBackoff(), 0),
        )
        self.script = self.client.register_script(SCRIPT)

    def evaluate(self, checks: Sequence[gcra.Check], *, now_ms: int | None = None):
        checks = list(checks)
        keys = [self.full_key(c.key) for c in checks]
        args: list = ["" if now_ms is None else int(now_ms)]
        for c in checks:
            b = c.budget
            args += [b.interval_ms, b.capacity_ms, c.cost, c.flags or "-", b.penalty * 1000, b.period * 1000]
        try:
            reply = self.script(keys=keys, args=args)
        except redis.RedisError as exc:
            raise StoreUnavailable(str(exc)) from exc
        now, allowed = int(reply[0]), bool(reply[1])
        results = [
            gcra.Result(bool(reply[2 + 4 * i]), int(reply[3 + 4 * i]), int(reply[4 + 4 * i]), bool(reply[5 + 4 * i]))
            for i in range(len(checks))
        ]
        return now, allowed, results

    def clear(self) -> None:
        try:
            for key in self.client.scan_iter(match=f"{self.key_prefix}:*", count=500):
                self.client.delete(key)
        except redis.RedisError as exc:
            raise StoreUnavailable(str(exc)) from exc
