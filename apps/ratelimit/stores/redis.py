"""Redis store: one EVALSHA per request evaluates every budget atomically.

The script reads the Redis clock, so every server process sharing the Redis
shares one budget and one notion of now. Timeouts are short and there are no
client-side retries: an unreachable Redis must turn into a quick 503, and the
connection reconnects on the next request once Redis is back.

Scripts go over one connection per process and thread, held between requests
and driven with redis-py's own ``send_command``/``read_response``: the pool's
checkout (a lock, a fork check, a poll of the socket) and the client's command
dispatch cost more than the round trip's own work, on every request.

All keys of one call must live on one node (Redis Cluster would need hash
tags); a single primary with replicas is the supported topology.
"""

import functools
import os
import secrets
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.exceptions import NoScriptError
from redis.retry import Retry

from .. import gcra
from .base import CredentialHit, CredentialMiss, Store, StoreUnavailable

HERE = Path(__file__).parent


def _script(name: str) -> str:
    # Every script carries the one GCRA function, so all budgets are computed by the same code.
    return (HERE / "gcra_budgets.lua").read_text() + (HERE / name).read_text()


SCRIPT = _script("redis_gcra.lua")
LOOKUP_SCRIPT = _script("redis_credential_lookup.lua")
FILL_SCRIPT = _script("redis_credential_fill.lua")
REVOKE_SCRIPT = (HERE / "redis_credential_revoke.lua").read_text()
SLOT_ACQUIRE_SCRIPT = (HERE / "redis_slot_acquire.lua").read_text()
SLOT_RELEASE_SCRIPT = "return redis.call('ZREM', KEYS[1], ARGV[1])"
USER_EPOCH_TTL = 86400


def _spec(check: gcra.Check) -> list:
    b = check.budget
    return [b.interval_ms, b.capacity_ms, check.cost, check.flags or "-", b.penalty * 1000, b.period * 1000]


@functools.cache
def _budgets_arg(budgets: tuple) -> str:
    """A budget class as the lookup script reads it: 8 space-separated values per budget."""
    values = []
    for budget in budgets:
        values += [budget.name, budget.key, *_spec(gcra.Check(budget, ""))]
    return " ".join(str(value) for value in values)


def _ready(connection) -> None:
    # What redis-py's pool does at checkout: connect if need be, and replace a socket the server
    # has closed (a restart, an idle timeout) before sending, rather than fail the request.
    if not connection.is_connected:
        connection.connect()
    try:
        if connection.can_read():
            raise redis.ConnectionError("unexpected data on an idle connection")
    except (redis.ConnectionError, redis.TimeoutError, OSError):
        connection.disconnect()
        connection.connect()


def _evalsha(connection, sha: str, keys: list, args: list):
    # Connects on first use and after a disconnect; raises the reply's error (NoScriptError included).
    connection.send_command("EVALSHA", sha, len(keys), *keys, *args)
    return connection.read_response()


def _results(reply, start: int, count: int) -> list[gcra.Result]:
    return [
        gcra.Result(
            bool(reply[start + 4 * i]),
            int(reply[start + 1 + 4 * i]),
            int(reply[start + 2 + 4 * i]),
            bool(reply[start + 3 + 4 * i]),
        )
        for i in range(count)
    ]


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
        self.lookup_script = self.client.register_script(LOOKUP_SCRIPT)
        self.fill_script = self.client.register_script(FILL_SCRIPT)
        self.revoke_script = self.client.register_script(REVOKE_SCRIPT)
        self.slot_acquire_script = self.client.register_script(SLOT_ACQUIRE_SCRIPT)
        self.slot_release_script = self.client.register_script(SLOT_RELEASE_SCRIPT)
        self._local = threading.local()

    def _connection(self):
        # A forked worker opens its own: a socket inherited from the parent is the parent's.
        local, pid = self._local, os.getpid()
        if getattr(local, "pid", None) != pid:
            pool = self.client.connection_pool
            local.connection, local.pid = pool.connection_class(**pool.connection_kwargs), pid
        return local.connection

    def run_script(self, script, keys: list, args: list):
        """EVALSHA ``script`` (a registered ``redis.commands.core.Script``); StoreUnavailable on any failure."""
        connection = self._connection()
        try:
            _ready(connection)
            try:
                return _evalsha(connection, script.sha, keys, args)
            except NoScriptError:
                # Redis restarted or its script cache was flushed: load the script, send again.
                script.sha = self.client.script_load(script.script)
                return _evalsha(connection, script.sha, keys, args)
        except redis.RedisError as exc:
            # redis-py has already dropped a socket that failed mid-send or mid-read (a timeout
            # included), so a late reply can never answer the next request (tested).
            raise StoreUnavailable(str(exc)) from exc

    def evaluate(self, checks: Sequence[gcra.Check], *, now_ms: int | None = None):
        checks = list(checks)
        keys = [self.full_key(c.key) for c in checks]
        args: list = ["" if now_ms is None else int(now_ms)]
        for c in checks:
            args += _spec(c)
        reply = self.run_script(self.script, keys, args)
        return int(reply[0]), bool(reply[1]), _results(reply, 2, len(checks))

    # --- The credential cache (apps/credentials/cache.py) -------------------
    supports_credential_cache = True

    def _entry_key(self, digest: str) -> str:
        return self.full_key(f"cred:{digest}")

    def _user_epoch_key(self, user_id: str) -> str:
        return self.full_key(f"cred-epoch:{user_id}")

    def credential_lookup(self, *, digest, audience, ip, budgets, now_ms=None):
        args = ["" if now_ms is None else int(now_ms), audience, self.key_prefix, ip or "", _budgets_arg(budgets)]
        args.append(int(time.time() * 1000) if now_ms is None else int(now_ms))
        reply = self.run_script(self.lookup_script, [self._entry_key(digest), self.full_key("cred-epoch")], args)
        if not int(reply[0]):
            return CredentialMiss(int(reply[1]))
        count = (len(reply) - 6) // 4
        return CredentialHit(
            payload=reply[2],
            stamped=bool(reply[3]),
            now_ms=int(reply[4]),
            allowed=bool(reply[5]),
            results=_results(reply, 6, count),
        )

    def credential_fill(self, *, digest, user_id, miss_us, control, payload, ttl_ms, used_key, used_ttl_ms, checks,
                        now_ms=None):  # fmt: skip
        keys = [self._entry_key(digest), self.full_key("cred-epoch"), self._user_epoch_key(user_id)]
        keys += [self.full_key(c.key) for c in checks]
        args: list = ["" if now_ms is None else int(now_ms), miss_us, control, payload, max(0, int(ttl_ms))]
        args += [used_key or "", max(1, int(used_ttl_ms))]
        for c in checks:
            args += _spec(c)
        reply = self.run_script(self.fill_script, keys, args)
        return bool(reply[0]), int(reply[1]), bool(reply[2]), _results(reply, 3, len(checks))

    def credential_used_key(self, credential_id: str) -> str:
        return self.full_key(f"cred-used:{credential_id}")

    def credential_revoke(self, *, user_id: str | None) -> None:
        if user_id is None:
            keys, args = [self.full_key("cred-epoch")], [""]
        else:
            keys, args = [self._user_epoch_key(user_id)], [USER_EPOCH_TTL]
        self.run_script(self.revoke_script, keys, args)

    # --- In-flight slots (services.ratelimit_in_flight) ------------------------------

    def slot_acquire(self, key: str, *, limit: int, ttl_ms: int, now_ms: int | None = None) -> str | None:
        token = secrets.token_hex(8)
        args = [limit, ttl_ms, token, "" if now_ms is None else int(now_ms)]
        taken = self.run_script(self.slot_acquire_script, [self.full_key(key)], args)
        return token if int(taken) else None

    def slot_release(self, key: str, token: str) -> None:
        self.run_script(self.slot_release_script, [self.full_key(key)], [token])

    def clear(self) -> None:
        try:
            for key in self.client.scan_iter(match=f"{self.key_prefix}:*", count=500):
                self.client.delete(key)
        except redis.RedisError as exc:
            raise StoreUnavailable(str(exc)) from exc
