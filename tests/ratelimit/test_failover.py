"""A Redis failover under Sentinel never brings a revoked credential back (docs/decisions/scale-out.md).

A primary, its replica and one Sentinel run on free ports. Many API keys are
cached; the replica is made to fall behind (stopped, so the primary's writes
wait in its buffer); a storm of revocations runs while the primary is killed;
Sentinel promotes the replica, which never received the epoch moves of the
revocations that returned. Every revocation that returned is refused
afterwards, through a store that follows Sentinel to the new primary.
"""

import shutil
import signal
import subprocess
import time

import pytest
import redis
from django.db import transaction

from apps.apikeys.models import ApiKey
from apps.apikeys.services import apikey_revoke
from apps.ratelimit import conf
from apps.ratelimit.exceptions import LimiterUnavailable
from apps.ratelimit.stores.base import StoreUnavailable
from apps.ratelimit.stores.redis import RedisStore
from tests.support.factories import UserFactory, make_api_key

from .redis_server import _wait_ping, free_port, spawn_redis

pytestmark = [pytest.mark.django_db, pytest.mark.e2e]

SERVICE = "svc"


class SentinelSet:
    def __init__(self, directory):
        self.directory = directory
        self.primary, self.replica, self.sentinel = free_port(), free_port(), free_port()
        self.processes: dict[int, subprocess.Popen] = {}

    def _server(self, port: int, *extra: str) -> None:
        self.processes[port] = spawn_redis(port, "--dir", str(self.directory), *extra)
        _wait_ping(port)

    def start(self) -> None:
        self._server(self.primary)
        self._server(self.replica, "--replicaof", "127.0.0.1", str(self.primary))
        config = self.directory / "sentinel.conf"
        config.write_text(
            f"port {self.sentinel}\nbind 127.0.0.1\ndir {self.directory}\n"
            f"sentinel monitor {SERVICE} 127.0.0.1 {self.primary} 1\n"
            f"sentinel down-after-milliseconds {SERVICE} 300\n"
            f"sentinel failover-timeout {SERVICE} 2000\n"
        )
        self.processes[self.sentinel] = subprocess.Popen(
            ["redis-server", str(config), "--sentinel"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _wait_ping(self.sentinel)
        replica = redis.Redis(port=self.replica, decode_responses=True)
        assert wait_until(lambda: replica.info("replication")["master_link_status"] == "up", 20)

    def primary_named(self) -> int:
        _host, port = redis.Redis(port=self.sentinel).sentinel_get_master_addr_by_name(SERVICE)
        return int(port)

    def kill(self, port: int) -> None:
        self.processes[port].kill()
        self.processes[port].wait()

    def stop(self) -> None:
        for process in self.processes.values():
            process.kill()
            process.wait()

    @property
    def url(self) -> str:
        return f"redis+sentinel://127.0.0.1:{self.sentinel}/{SERVICE}"


def wait_until(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return True
        except redis.RedisError:
            pass
        time.sleep(0.05)
    return False


def answering(store) -> bool:
    try:
        store.count("probe", window_ms=1000)
    except StoreUnavailable:
        return False
    return True


@pytest.fixture
def sentinel_set(tmp_path):
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    servers = SentinelSet(tmp_path)
    try:
        servers.start()
        yield servers
    finally:
        servers.stop()


def test_no_revocation_that_returned_is_undone_by_a_failover(sentinel_set, monkeypatch, api):
    store = RedisStore(url=sentinel_set.url, key_prefix="fo", socket_timeout=0.5)
    monkeypatch.setattr(conf, "get_store", lambda: store)
    keys = [make_api_key(UserFactory()) for _ in range(40)]
    for _key, secret in keys:  # filled, then answered from the cache
        assert [api.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code for _ in range(2)] == [200, 200]
    entries = redis.Redis(port=sentinel_set.primary).keys("fo:*:cred:*")
    assert len(entries) == len(keys)
    assert wait_until(lambda: len(redis.Redis(port=sentinel_set.replica).keys("fo:*:cred:*")) == len(keys), 10)

    # The replica stops reading its primary's stream: what the primary writes now is lost with it.
    sentinel_set.processes[sentinel_set.replica].send_signal(signal.SIGSTOP)
    returned, refused = [], []
    for i, (key, _secret) in enumerate(keys):
        if i == len(keys) // 2:
            sentinel_set.kill(sentinel_set.primary)
        try:
            with transaction.atomic():  # as the revoking request's transaction
                apikey_revoke(key=ApiKey.objects.get(pk=key.pk))
        except LimiterUnavailable:
            refused.append(key.pk)  # failed closed: rolled back, never returned to its caller
        else:
            returned.append(key.pk)
    sentinel_set.processes[sentinel_set.replica].send_signal(signal.SIGCONT)
    assert returned and refused  # the storm straddled the failover
    assert wait_until(lambda: sentinel_set.primary_named() == sentinel_set.replica, 30)
    promoted = redis.Redis(port=sentinel_set.replica)
    assert wait_until(lambda: promoted.info("replication")["role"] == "master", 10)
    # The promoted replica still holds the entries of the revoked keys, under epochs it never saw move.
    assert len(promoted.keys("fo:*:cred:*")) == len(keys)

    # Until Sentinel names the new primary as settled, the store fails closed (503, Retry-After).
    assert wait_until(lambda: answering(store), 30)
    for key, secret in keys:
        status = api.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code
        assert status == (401 if key.pk in returned else 200), key.pk
