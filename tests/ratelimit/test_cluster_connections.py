"""The Cluster store holds one connection per primary, as the one-Redis store holds its one.

A private three-primary cluster (tests/ratelimit/redis_server.py): a budget call and a cached
credential's two round trips open no connection once warm, each round trip is one command on
the wire, and a flushed script cache, a slot moved to another primary or a restarted cluster
are each answered through the cluster client's own path once, then held again.
"""

import pytest
import redis

from apps.ratelimit import gcra
from apps.ratelimit.budgets import Budget
from apps.ratelimit.stores.base import StoreUnavailable
from apps.ratelimit.stores.redis_cluster import RedisClusterStore

from .redis_server import sent_commands, start_private_cluster

BUDGET = Budget("conn-test", burst=1000, rate=1000, period=60, key="principal")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    started = start_private_cluster(tmp_path_factory.mktemp("cluster-connections"))
    yield started
    started.stop()


@pytest.fixture
def store(cluster, request):
    return RedisClusterStore(url=cluster.url, key_prefix=f"conn-{request.node.name[:20]}", clock_skew_ms=0)


def spend(store, who: str):
    return store.evaluate([gcra.Check(BUDGET, f"conn-test:{who}")])


@pytest.fixture
def connects(monkeypatch):
    opened = []
    original = redis.connection.AbstractConnection.connect

    def counting(self):
        if self._sock is None:
            opened.append((self.host, self.port))
        return original(self)

    monkeypatch.setattr(redis.connection.AbstractConnection, "connect", counting)
    return opened


# Subjects whose keys land on each of the three primaries (the tags spread over the slots).
WHO = [f"user-{n}" for n in range(30)]


def test_once_warm_a_call_opens_nothing_and_sends_one_command(store, connects, monkeypatch):
    for who in WHO:
        spend(store, who)
    nodes = {(host, port) for host, port in connects}
    assert len(nodes) == 3
    connects.clear()
    sent = sent_commands(monkeypatch)
    for who in WHO:
        _now, allowed, _results = spend(store, who)
        assert allowed
    assert connects == []
    assert len(sent) == len(WHO)


def test_a_flushed_script_cache_is_answered_and_the_connection_held_again(store, cluster, connects, monkeypatch):
    spend(store, "flushed")
    for port in cluster.ports:
        redis.Redis(port=port).script_flush()
    _now, allowed, _results = spend(store, "flushed")
    assert allowed
    connects.clear()
    sent = sent_commands(monkeypatch)
    spend(store, "flushed")
    assert connects == [] and len(sent) == 1


def test_a_moved_slot_is_followed(store, cluster):
    spend(store, "moving")
    key = store.check_key(gcra.Check(BUDGET, "conn-test:moving"))
    client = cluster.client()
    slot = client.keyslot(key)
    nodes = {node["port"]: node["node_id"] for node in (_node(cluster, port) for port in cluster.ports)}
    owner = client.nodes_manager.get_node_from_slot(slot).port
    target = next(port for port in cluster.ports if port != owner)
    # Move the (empty of other keys) slot: the key itself goes with it.
    source, destination = redis.Redis(port=owner), redis.Redis(port=target)
    destination.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", nodes[owner])
    source.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", nodes[target])
    for name in source.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100):
        source.execute_command("MIGRATE", "127.0.0.1", target, name, 0, 5000)
    for port in cluster.ports:
        redis.Redis(port=port).execute_command("CLUSTER", "SETSLOT", slot, "NODE", nodes[target])
    _now, allowed, _results = spend(store, "moving")
    assert allowed
    assert store.client.nodes_manager.get_node_from_slot(slot).port == target


def _node(cluster, port) -> dict:
    line = redis.Redis(port=port, decode_responses=True).execute_command("CLUSTER", "MYID")
    return {"port": port, "node_id": line}


def test_a_restarted_cluster_is_reached_again(store, cluster):
    spend(store, "restart")
    cluster.stop()
    with pytest.raises(StoreUnavailable):
        spend(store, "restart")
    cluster.restart()
    _now, allowed, _results = spend(store, "restart")
    assert allowed
