"""The benchmark's reference views (mounted only with BENCH_FLOOR; bench/run.py)."""

import json

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
    before = store.client.info("commandstats")
    response = bench_floor_round_trip(rf.get("/bench/floor-round-trip"))
    after = store.client.info("commandstats")
    assert json.loads(response.content) == {"object": "floor", "ok": True}
    assert after["cmdstat_evalsha"]["calls"] - before["cmdstat_evalsha"]["calls"] == 1
