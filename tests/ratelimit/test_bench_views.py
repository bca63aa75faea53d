"""The benchmark's reference views (mounted only with BENCH_FLOOR; bench/run.py)."""

import json

from redis.cluster import RedisCluster

from apps.ratelimit import conf
from apps.ratelimit.bench_views import bench_floor, bench_floor_round_trip
from tests.ratelimit.redis_server import redis_store_or_skip


def test_the_floor_is_a_small_json(rf):
    response = bench_floor(rf.get("/bench/floor"))
    assert response.status_code == 200
    assert json.loads(response.content) == {"object": "floor", "ok": True}


def test_the_round_trip_calibration_costs_one_redis_command(rf, request, monkeypatch):
    store = redis_store_or_skip(request)
    monkeypatch.setattr(conf, "get_store", lambda: store)
    bench_floor_round_trip(rf.get("/bench/floor-round-trip"))  # loads the script once
    before = evalsha_calls(store)
    response = bench_floor_round_trip(rf.get("/bench/floor-round-trip"))
    assert json.loads(response.content) == {"object": "floor", "ok": True}
    assert evalsha_calls(store) - before == 1


def evalsha_calls(store) -> int:
    """EVALSHA calls served so far: by the one server, or summed over every node of a cluster (a
    script without keys runs on any of them)."""
    if isinstance(store.client, RedisCluster):
        stats = store.client.info("commandstats", target_nodes=RedisCluster.ALL_NODES).values()
    else:
        stats = [store.client.info("commandstats")]
    return sum(stat.get("cmdstat_evalsha", {}).get("calls", 0) for stat in stats)
