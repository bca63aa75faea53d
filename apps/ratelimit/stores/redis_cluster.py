"""The Redis store on a Redis Cluster (``REDIS_CLUSTER=1``; ``REDIS_URL`` names any one node).

A cluster runs a script only when all its keys share a slot, so every key
carries a hash tag (budgets.slot): the blocking budgets of one call share
their caller's tag and stay exact (one script spends them all or none);
alert-only budgets, which never block, are spent by a call of their own.

A cached credential is found by its digest, but its user's epoch and budgets
live in the user's slot, which only the entry names: a hit costs two round
trips (the entry; then the user's epoch and the budgets), plus one for an
alert-only budget (a client's ceiling), where one server needs one. Entries
are spread over ``entry_buckets`` slots, each with its own copy of the global
epoch, which a global revocation moves in every bucket.

Epochs are server times, and a miss's time comes from the entry's server while
the user's epoch moves on the user's: the miss is taken ``clock_skew_ms``
early (RATELIMIT["CLUSTER_CLOCK_SKEW_MS"]), so a revocation moved on a server
whose clock runs behind by less than that still counts as after the miss, and
the read is not cached. The price: a user's credentials are not cached for that
long after their epoch moved.

Scripts go over one connection per primary, per process and thread, held between requests
as the one-Redis store holds its one: the node is the one the client's slot map names for
the first key. A redirect (a slot moved), a node gone or a flushed script cache sends the
script once more through the cluster client's own path, which follows the redirect and
refreshes its map; a timeout is a 503 at once, as on one Redis.
"""

import json
import os
import threading
import time
from collections.abc import Sequence

import redis
from redis.cluster import RedisCluster
from redis.exceptions import AskError, ClusterDownError, NoScriptError, RedisClusterException, TryAgainError

from .. import gcra
from .base import CredentialHit, CredentialMiss, StoreUnavailable
from .redis import COUNT_SCRIPT, HERE, SLOT_RELEASE_SCRIPT, RedisStore, _evalsha, _ready, _results, _script, _spec

ENTRY_LOOKUP_SCRIPT = _script("cluster_entry_lookup.lua")
USER_LOOKUP_SCRIPT = _script("cluster_user_lookup.lua")
USER_FILL_SCRIPT = _script("cluster_user_fill.lua")
ENTRY_FILL_SCRIPT = _script("cluster_entry_fill.lua")


class RedisClusterStore(RedisStore):
    entry_buckets = 64

    def __init__(
        self, *, url: str, key_prefix: str = "rl", socket_timeout: float = 0.5, clock_skew_ms: int = 1000, **options
    ):
        self.key_prefix, self.url = key_prefix, url
        self.clock_skew_us = int(clock_skew_ms) * 1000
        self.client = RedisCluster.from_url(url, socket_timeout=socket_timeout, socket_connect_timeout=socket_timeout)
        register = self.client.register_script
        self.script = register(_script("redis_gcra.lua"))
        self.revoke_script = register((HERE / "redis_credential_revoke.lua").read_text())
        self.slot_acquire_script = register((HERE / "redis_slot_acquire.lua").read_text())
        self.slot_release_script = register(SLOT_RELEASE_SCRIPT)
        self.count_script = register(COUNT_SCRIPT)
        self.entry_lookup_script = register(ENTRY_LOOKUP_SCRIPT)
        self.user_lookup_script = register(USER_LOOKUP_SCRIPT)
        self.user_fill_script = register(USER_FILL_SCRIPT)
        self.entry_fill_script = register(ENTRY_FILL_SCRIPT)
        self._scripts = [value for value in vars(self).values() if hasattr(value, "sha")]
        self._loaded = False
        self._local = threading.local()

    def _node_connection(self, key: str):
        """This thread's held connection to the primary that serves ``key``'s slot."""
        local, pid = self._local, os.getpid()
        if getattr(local, "pid", None) != pid:
            # A forked worker opens its own: a socket inherited from the parent is the parent's.
            local.connections, local.pid = {}, pid
        node = self.client.nodes_manager.get_node_from_slot(self.client.keyslot(key))
        connection = local.connections.get(node.name)
        if connection is None:
            pool = node.redis_connection.connection_pool
            connection = local.connections[node.name] = pool.connection_class(**pool.connection_kwargs)
        return connection

    def run_script(self, script, keys: list, args: list):
        try:
            if not self._loaded:
                # Every script on every primary once, so no request pays a NOSCRIPT and a reload later.
                for each in self._scripts:
                    self.client.script_load(each.script)
                self._loaded = True
            # A script of no keys may run on any primary: the one that serves slot 0.
            connection = self._node_connection(keys[0] if keys else "")
            try:
                _ready(connection)
                return _evalsha(connection, script.sha, keys, args)
            except redis.TimeoutError:
                raise
            except (AskError, TryAgainError, ClusterDownError, NoScriptError, redis.ConnectionError):
                # A slot moved or moving, a node gone or restarted (its scripts with it): the client's
                # own path once, which follows redirects, refreshes its slot map and reloads the script.
                # The held connection stays (redis-py has dropped a socket that failed).
                return script(keys=keys, args=args)
        except (redis.RedisError, RedisClusterException) as exc:
            raise StoreUnavailable(str(exc)) from exc

    def evaluate(self, checks: Sequence[gcra.Check], *, now_ms: int | None = None):
        """The blocking checks in one script (they share a slot); each alert-only tag in its own."""
        checks = list(checks)
        groups: dict[str, list[int]] = {}
        blocking: list[int] = []
        for i, check in enumerate(checks):
            if check.budget.alert_only:
                groups.setdefault(self.check_key(check).split("}", 1)[0], []).append(i)
            else:
                blocking.append(i)
        if len({self.check_key(checks[i]).split("}", 1)[0] for i in blocking}) > 1:
            # budgets.slot gives every class one tag; a call that mixes tags is a table error.
            raise StoreUnavailable("the blocking budgets of one call span hash slots")
        results: list = [None] * len(checks)
        now, allowed = None, True
        for indexes in ([blocking] if blocking else []) + list(groups.values()):
            group_now, group_allowed, group_results = super().evaluate([checks[i] for i in indexes], now_ms=now_ms)
            if now is None:
                now, allowed = group_now, group_allowed
            for i, result in zip(indexes, group_results, strict=True):
                results[i] = result
        return now, allowed, results

    # --- The credential cache ---------------------------------------------------

    def _subject_checks(self, budgets, control: dict, ip: str | None) -> list[gcra.Check]:
        subject = {
            "principal": control.get("s_principal"),
            "user": control.get("s_user"),
            "client": control.get("s_client"),
            "ip": ip,
        }
        return [
            gcra.Check(budget, f"{budget.name}:{subject[budget.key]}") for budget in budgets if subject.get(budget.key)
        ]

    def _user_call(self, script, user_id: str, marker: str, marker_ms, head: list, checks: list[gcra.Check], now_ms):
        keys = [self._user_epoch_key(user_id), marker or self._user_epoch_key(user_id)]
        keys += [self.check_key(c) for c in checks]
        args: list = ["" if now_ms is None else int(now_ms), *head, marker_ms if marker else ""]
        for c in checks:
            args += _spec(c)
        return self.run_script(script, keys, args)

    def _merge(self, checks, blocking_results, now_ms):
        """Results in ``checks`` order: the blocking ones given, the alert-only ones spent now."""
        alerts = [c for c in checks if c.budget.alert_only]
        alert_results = iter(self.evaluate(alerts, now_ms=now_ms)[2] if alerts else [])
        blocking_results = iter(blocking_results)
        return [next(alert_results) if c.budget.alert_only else next(blocking_results) for c in checks]

    def credential_lookup(self, *, digest, audience, ip, budgets, now_ms=None):
        worker_ms = int(time.time() * 1000) if now_ms is None else int(now_ms)
        keys = [self._entry_key(digest), self._global_epoch_key(self._bucket(digest))]
        reply = self.run_script(
            self.entry_lookup_script, keys, ["" if now_ms is None else int(now_ms), audience, worker_ms]
        )
        miss = CredentialMiss(int(reply[1]) - self.clock_skew_us)
        if not int(reply[0]):
            return miss
        control = json.loads(reply[2])
        checks = self._subject_checks(budgets, control, ip)
        blocking = [c for c in checks if not c.budget.alert_only]
        head = [control["ue"], control["ru"]]
        answer = self._user_call(
            self.user_lookup_script, control["uid"], control["used"], control["used_ms"], head, blocking, now_ms
        )
        if not int(answer[0]):
            return miss
        return CredentialHit(
            payload=reply[3],
            stamped=bool(answer[1]),
            now_ms=int(answer[2]),
            allowed=bool(answer[3]),
            results=self._merge(checks, _results(answer, 4, len(blocking)), now_ms),
        )

    def credential_fill(self, *, digest, user_id, miss_us, control, payload, ttl_ms, used_key, used_ttl_ms, checks,
                        now_ms=None):  # fmt: skip
        blocking = [c for c in checks if not c.budget.alert_only]
        answer = self._user_call(
            self.user_fill_script, user_id, used_key, max(1, int(used_ttl_ms)), [miss_us], blocking, now_ms
        )
        # Called even when the user's epoch refuses the fill: it makes a missing global epoch.
        usable = int(answer[0]) and int(ttl_ms) > 0
        entry = {**json.loads(control), "ue": answer[1].decode(), "ru": answer[2].decode()}
        keys = [self._entry_key(digest), self._global_epoch_key(self._bucket(digest))]
        args = [miss_us, json.dumps(entry, separators=(",", ":")), payload, int(ttl_ms) if usable else 0]
        filled = bool(int(self.run_script(self.entry_fill_script, keys, args)))
        results = self._merge(checks, _results(answer, 5, len(blocking)), now_ms)
        return filled, int(answer[3]), bool(answer[4]), results

    def ping(self) -> None:
        # Every primary: a request's keys may live on any of them.
        try:
            self.client.ping(target_nodes=RedisCluster.PRIMARIES)
        except (redis.RedisError, RedisClusterException) as exc:
            raise StoreUnavailable(str(exc)) from exc

    def clear(self) -> None:
        try:
            for key in self.client.scan_iter(match=f"{self.key_prefix}:*", count=500):
                self.client.delete(key)
        except (redis.RedisError, RedisClusterException) as exc:
            raise StoreUnavailable(str(exc)) from exc
