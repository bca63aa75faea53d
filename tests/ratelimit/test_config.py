"""Store selection from settings (read lazily) and the system checks."""

from apps.ratelimit import checks, conf
from apps.ratelimit.stores.memory import MemoryStore
from apps.ratelimit.stores.redis import RedisStore


def ids(errors):
    return [e.id for e in errors]


def test_store_is_redis_when_redis_url_is_set_else_in_process(settings):
    settings.RATELIMIT = {"KEY_PREFIX": "cfg"}
    settings.REDIS_CLUSTER = False
    settings.REDIS_URL = None
    assert isinstance(conf.get_store(), MemoryStore)
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    store = conf.get_store()
    assert isinstance(store, RedisStore)
    assert store.key_prefix == "cfg"
    assert conf.get_store() is store  # built once per configuration, connections pooled


def test_store_class_path_wins(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    settings.RATELIMIT = {"STORE": conf.MEMORY_STORE}
    assert isinstance(conf.get_store(), MemoryStore)


def test_check_store_not_importable(settings):
    settings.RATELIMIT = {"STORE": "apps.ratelimit.stores.nowhere.Store"}
    assert ids(checks.check_store()) == ["ratelimit.E001"]


def test_check_store_not_a_store(settings):
    settings.RATELIMIT = {"STORE": "collections.OrderedDict"}
    assert ids(checks.check_store()) == ["ratelimit.E002"]


def test_check_redis_store_without_url(settings):
    settings.REDIS_URL = None
    settings.RATELIMIT = {"STORE": conf.REDIS_STORE}
    assert ids(checks.check_store()) == ["ratelimit.E003"]


def test_check_shape_and_unknown_keys(settings):
    settings.RATELIMIT = ["nope"]
    assert ids(checks.check_store()) == ["ratelimit.E004"]
    settings.RATELIMIT = {"STORES": "x"}
    assert ids(checks.check_store()) == ["ratelimit.E005"]


def test_check_warns_in_process_store_outside_debug(settings):
    settings.DEBUG = False
    settings.REDIS_URL = None
    settings.RATELIMIT = {}
    assert ids(checks.check_store()) == ["ratelimit.I001"]
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"
    assert ids(checks.check_store()) == []
    settings.RATELIMIT = {"ENABLED": False}
    assert ids(checks.check_store()) == ["ratelimit.W002"]


def test_checks_are_registered():
    from django.core.checks import registry

    assert checks.check_store in registry.registry.get_checks()
