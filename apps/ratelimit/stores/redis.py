"""Redis store: one EVALSHA per request evaluates every budget atomically.

The script reads the Redis clock, so every server process sharing the Redis
shares one budget and one notion of now. Timeouts are short and there are no
client-side retries: an unreachable Redis must turn into a quick 503, and the
connection reconnects on the next request once Redis is back.

Scripts go over one connection per process and thread, held between requests
and driven with redis-py's own ``send_command``/``read_response``: the pool's
checkout (a lock, a fork check, a poll of the socket) and the client's command
dispatch cost more than the round trip's own work, on every request.

Every key carries a hash tag (``{...}``, budgets.slot) so that the keys of one
script share a Redis Cluster slot; apps/ratelimit/stores/redis_cluster.py runs
the same store on a cluster. ``redis+sentinel://host:port[,host:port]/service[/db]``
names a primary found through Sentinel. A cached credential names the
replication id of the server it was filled on, so a failover, which gives the
promoted replica a new one, kills every entry the old primary held: a
revocation that the replica had not received yet cannot be undone by it
(docs/decisions/scale-out.md).
"""

import functools
import os
import secrets
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

import redis
from redis.backoff import NoBackoff
from redis.exceptions import NoScriptError
from redis.retry import Retry

from .. import gcra
from ..budgets import ip_slot, slot
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
COUNT_SCRIPT = (
    "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return n"
)
USER_EPOCH_TTL = 86400


def _spec(check: gcra.Check) -> list:
    b = check.budget
    return [b.interval_ms, b.capacity_ms, check.cost, check.flags or "-", b.penalty * 1000, b.period * 1000]


@functools.cache
def _budgets_arg(budgets: tuple) -> str:
    """A budget class as the lookup script reads it: 8 space-separated values per budget."""
    values = []
    for budget in budgets:
        # The script derives a cached credential's key tags from its subject (subject_tag).
        assert budget.slot is None, f"{budget.name}: a credential's budgets take their tag from the subject"
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


def sentinel_client(url: str, **options) -> redis.Redis:
    """A client of the primary that Sentinel names: ``redis+sentinel://h1:26379,h2:26379/service[/db]``.

    Its connections ask Sentinel for the primary when they connect, and drop a primary that was
    demoted (a READONLY reply), so the next request reaches the promoted one.
    """
    from redis.sentinel import Sentinel

    parts = urlsplit(url)
    hosts = []
    for item in parts.netloc.rsplit("@", 1)[-1].split(","):
        host, _, port = item.rpartition(":")
        hosts.append((host.strip("[]") or "127.0.0.1", int(port or 26379)))
    path = [p for p in parts.path.split("/") if p]
    if not path:
        raise ValueError("a redis+sentinel:// URL names the service: redis+sentinel://host:port/service")
    service, db = path[0], int(path[1]) if len(path) > 1 else 0
    timeout = options.get("socket_timeout")
    sentinel = Sentinel(hosts, sentinel_kwargs={"socket_timeout": timeout, "socket_connect_timeout": timeout})
    return sentinel.master_for(service, db=db, **options)


def redis_client(url: str, *, socket_timeout: float) -> redis.Redis:
    options = {
        "socket_timeout": socket_timeout,
        "socket_connect_timeout": socket_timeout,
        "retry": Retry(NoBackoff(), 0),
    }
    if url.startswith("redis+sentinel://"):
        return sentinel_client(url, **options)
    return redis.Redis.from_url(url, **options)


class RedisStore(Store):
    # A cached credential's entry lives in one of this many buckets (by its digest), each with
    # its own copy of the global epoch; one server needs one, a cluster spreads them.
    entry_buckets = 1

    def __init__(self, *, url: str, key_prefix: str = "rl", socket_timeout: float = 0.5, **options):
        super().__init__(key_prefix=key_prefix)
        self.url = url
        self.client = redis_client(url, socket_timeout=socket_timeout)
        self.script = self.client.register_script(SCRIPT)
        self.lookup_script = self.client.register_script(LOOKUP_SCRIPT)
        self.fill_script = self.client.register_script(FILL_SCRIPT)
        self.revoke_script = self.client.register_script(REVOKE_SCRIPT)
        self.slot_acquire_script = self.client.register_script(SLOT_ACQUIRE_SCRIPT)
        self.slot_release_script = self.client.register_script(SLOT_RELEASE_SCRIPT)
        self.count_script = self.client.register_script(COUNT_SCRIPT)
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

    def check_key(self, check: gcra.Check) -> str:
        """The key of one budget check, tagged with its slot (budgets.slot)."""
        value = check.key.split(":", 1)[1]
        return f"{self.key_prefix}:{{{slot(check.budget, value)}}}:{check.key}"

    def evaluate(self, checks: Sequence[gcra.Check], *, now_ms: int | None = None):
        checks = list(checks)
        keys = [self.check_key(c) for c in checks]
        args: list = ["" if now_ms is None else int(now_ms)]
        for c in checks:
            args += _spec(c)
        reply = self.run_script(self.script, keys, args)
        return int(reply[0]), bool(reply[1]), _results(reply, 2, len(checks))

    # --- The credential cache (apps/credentials/cache.py) -------------------
    supports_credential_cache = True

    def _bucket(self, digest: str) -> int:
        return int(digest[:8], 16) % self.entry_buckets if self.entry_buckets > 1 else 0

    def _entry_key(self, digest: str) -> str:
        return self.full_key(f"{{e{self._bucket(digest)}}}:cred:{digest}")

    def _global_epoch_key(self, bucket: int) -> str:
        return self.full_key(f"{{e{bucket}}}:cred-epoch")

    def _user_epoch_key(self, user_id: str) -> str:
        return self.full_key(f"{{u:{user_id}}}:cred-epoch")

    def credential_lookup(self, *, digest, audience, ip, budgets, now_ms=None):
        args = ["" if now_ms is None else int(now_ms), audience, self.key_prefix, ip or "", _budgets_arg(budgets)]
        args += [int(time.time() * 1000) if now_ms is None else int(now_ms), ip_slot(ip) if ip else ""]
        keys = [self._entry_key(digest), self._global_epoch_key(self._bucket(digest))]
        reply = self.run_script(self.lookup_script, keys, args)
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
        keys = [self._entry_key(digest), self._global_epoch_key(self._bucket(digest)), self._user_epoch_key(user_id)]
        keys += [self.check_key(c) for c in checks]
        args: list = ["" if now_ms is None else int(now_ms), miss_us, control, payload, max(0, int(ttl_ms))]
        args += [used_key or "", max(1, int(used_ttl_ms))]
        for c in checks:
            args += _spec(c)
        reply = self.run_script(self.fill_script, keys, args)
        return bool(reply[0]), int(reply[1]), bool(reply[2]), _results(reply, 3, len(checks))

    def credential_used_key(self, credential_id: str, user_id: str) -> str:
        return self.full_key(f"{{u:{user_id}}}:cred-used:{credential_id}")

    def credential_revoke(self, *, user_id: str | None) -> None:
        if user_id is not None:
            self.run_script(self.revoke_script, [self._user_epoch_key(user_id)], [USER_EPOCH_TTL])
            return
        for bucket in range(self.entry_buckets):
            self.run_script(self.revoke_script, [self._global_epoch_key(bucket)], [""])

    # --- In-flight slots (services.ratelimit_in_flight) ------------------------------

    def slot_acquire(self, key: str, *, limit: int, ttl_ms: int, now_ms: int | None = None) -> str | None:
        token = secrets.token_hex(8)
        args = [limit, ttl_ms, token, "" if now_ms is None else int(now_ms)]
        taken = self.run_script(self.slot_acquire_script, [self.full_key(key)], args)
        return token if int(taken) else None

    def slot_release(self, key: str, token: str) -> None:
        self.run_script(self.slot_release_script, [self.full_key(key)], [token])

    def count(self, key: str, *, window_ms: int) -> int:
        return int(self.run_script(self.count_script, [self.full_key(key)], [max(1, int(window_ms))]))

    def ping(self) -> None:
        try:
            self.client.ping()
        except redis.RedisError as exc:
            raise StoreUnavailable(str(exc)) from exc

    def clear(self) -> None:
        try:
            for key in self.client.scan_iter(match=f"{self.key_prefix}:*", count=500):
                self.client.delete(key)
        except redis.RedisError as exc:
            raise StoreUnavailable(str(exc)) from exc
