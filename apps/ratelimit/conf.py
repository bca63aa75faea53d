"""``settings.RATELIMIT``, read on every access so ``override_settings`` works.

Keys: ``ENABLED`` (bool), ``STORE`` (dotted path of a Store class; default:
the Redis store when a Redis URL is configured (on a cluster with ``settings.REDIS_CLUSTER``),
else the in-process store),
``KEY_PREFIX``, ``REDIS_URL`` (default ``settings.REDIS_URL``),
``SOCKET_TIMEOUT`` (seconds), ``UNAVAILABLE_RETRY_AFTER`` (seconds),
``CLUSTER_CLOCK_SKEW_MS``.
"""

import threading

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string

REDIS_STORE = "apps.ratelimit.stores.redis.RedisStore"
REDIS_CLUSTER_STORE = "apps.ratelimit.stores.redis_cluster.RedisClusterStore"
MEMORY_STORE = "apps.ratelimit.stores.memory.MemoryStore"

DEFAULTS = {
    "ENABLED": True,
    "STORE": None,
    "KEY_PREFIX": "rl",
    "REDIS_URL": None,
    "SOCKET_TIMEOUT": 0.5,
    "UNAVAILABLE_RETRY_AFTER": 5,
    # The most the clocks of a Redis Cluster's servers may differ by (redis_cluster.py).
    "CLUSTER_CLOCK_SKEW_MS": 1000,
}


def get(name: str):
    configured = getattr(settings, "RATELIMIT", None) or {}
    value = configured.get(name, DEFAULTS[name])
    if name == "REDIS_URL" and not value:
        return getattr(settings, "REDIS_URL", None)
    if name == "STORE" and not value:
        if not get("REDIS_URL"):
            return MEMORY_STORE
        return REDIS_CLUSTER_STORE if getattr(settings, "REDIS_CLUSTER", False) else REDIS_STORE
    return value


_lock = threading.Lock()
_stores: dict[tuple, object] = {}
_current: dict[str, object] = {}


def get_store():
    """The configured store, built once per configuration (connections are pooled).

    Asked on every request: the current one is kept until a setting changes.
    """
    store = _current.get("store")
    if store is not None:
        return store
    config = (get("STORE"), get("REDIS_URL"), get("KEY_PREFIX"), get("SOCKET_TIMEOUT"), get("CLUSTER_CLOCK_SKEW_MS"))
    store = _stores.get(config)
    if store is None:
        with _lock:
            store = _stores.get(config)
            if store is None:
                path, url, prefix, timeout, skew = config
                store = import_string(path)(url=url, key_prefix=prefix, socket_timeout=timeout, clock_skew_ms=skew)
                _stores[config] = store
    _current["store"] = store
    return store


@receiver(setting_changed)
def _forget_stores(*, setting, **kwargs):
    if setting in {"RATELIMIT", "REDIS_URL", "REDIS_CLUSTER"}:
        _current.clear()
        _stores.clear()
