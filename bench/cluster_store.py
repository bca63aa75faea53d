"""`GET /v1/me` with the limiter's store on one Redis and on a three-primary Redis Cluster, in process.

``python -m bench.cluster_store`` (``make bench`` runs it): a private redis-server and a private
three-primary cluster on free loopback ports (tests/ratelimit/redis_server.py), a throwaway SQLite
database (a cached credential's request sends no SQL), and 50 API keys, each cached in the store
under measure before its round. One thread sends ``GET /v1/me`` through Django's whole request
cycle, the store switched round by round (the order reversing every round), so each ratio compares
rounds taken within the same minute. Round trips are the commands written to any Redis per request.
Budgets are roomy (bench/roomy_store.py), as in the main run. bench/nodes.py measures the same read
through gunicorn and wrk on the main run's data set. With ``--write-docs`` the figures replace the
section "One Redis and the Cluster, in process" of docs/performance.md.
"""

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time

import redis

from bench import docs

KEYS = 50
STORES = {
    "one": ("one Redis", "bench.roomy_store.RoomyRedisStore"),
    "cluster": ("Redis Cluster, 3 primaries", "bench.roomy_store.RoomyRedisClusterStore"),
}


def main(*, rounds: int = 5, duration: float = 3.0, docs_wanted: bool = False) -> int:
    from tests.ratelimit.redis_server import start_private_cluster, start_private_redis

    one = start_private_redis()
    cluster = start_private_cluster(tempfile.mkdtemp(prefix="bench-cluster-"))
    try:
        os.environ["REDIS_URL"] = one.url
        from bench import inprocess

        inprocess.configure("cluster")
        return _measure(one.url, cluster.url, rounds=rounds, duration=duration, docs_wanted=docs_wanted)
    finally:
        cluster.stop()
        one.stop()


def _measure(one_url: str, cluster_url: str, *, rounds: int, duration: float, docs_wanted: bool) -> int:
    from django.conf import settings
    from django.test import Client, override_settings

    from tests.support.factories import UserFactory, make_api_key

    urls = {"one": one_url, "cluster": cluster_url}
    secrets = [make_api_key(UserFactory(), scopes=["rates:read"])[1] for _ in range(KEYS)]
    client = Client()
    sent = [0]
    original = redis.connection.AbstractConnection.send_packed_command

    def counting(self, command, check_health=True):
        sent[0] += 1
        return original(self, command, check_health)

    redis.connection.AbstractConnection.send_packed_command = counting
    figures: dict[str, list[float]] = {name: [] for name in STORES}
    trips: dict[str, float] = {}
    for round_number in range(rounds):
        order = list(STORES) if round_number % 2 == 0 else list(reversed(STORES))
        for name in order:
            config = {**settings.RATELIMIT, "STORE": STORES[name][1], "REDIS_URL": urls[name]}
            with override_settings(RATELIMIT=config, REDIS_CLUSTER=name == "cluster"):
                for secret in secrets:  # the epoch, then the cached entry; the store's connections opened
                    for _ in range(2):
                        assert client.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200
                sent[0], done = 0, 0
                begun = time.perf_counter()
                while time.perf_counter() - begun < duration:
                    response = client.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secrets[done % KEYS]}")
                    assert response.status_code == 200, response.content
                    done += 1
                figures[name].append(done / (time.perf_counter() - begun))
                trips[name] = sent[0] / done
    redis.connection.AbstractConnection.send_packed_command = original
    medians = {name: statistics.median(values) for name, values in figures.items()}
    ratios = [c / o for c, o in zip(figures["cluster"], figures["one"], strict=True)]
    for name, (label, _path) in STORES.items():
        print(f"GET /v1/me, {label:28s} {medians[name]:8.1f} /s  {trips[name]:.2f} round trips a request")
    print(
        f"cluster / one Redis: {medians['cluster'] / medians['one']:.2f} (rounds {min(ratios):.2f}-{max(ratios):.2f})"
    )
    if docs_wanted:
        rows = "".join(
            f"| {label} | {medians[name]:.0f} | {trips[name]:.2f} |\n" for name, (label, _path) in STORES.items()
        )
        docs.replace_section(
            "One Redis and the Cluster, in process",
            "## One Redis and the Cluster, in process\n\n"
            f"From `python -m bench.cluster_store --write-docs` (bench/cluster_store.py), {platform.machine()}, "
            f"{os.cpu_count()} cores shared with other work: `GET /v1/me` with {KEYS} cached API keys through "
            "Django's whole request cycle in one thread, the limiter's store on a private redis-server or on a "
            f"private three-primary cluster, switched round by round ({rounds} rounds of {duration:g} s each, "
            "medians); round trips are the commands written to any Redis per request.\n\n"
            "| store | requests a second | Redis round trips a request |\n|---|---:|---:|\n"
            f"{rows}\n"
            f"The Cluster at {medians['cluster'] / medians['one']:.2f} of one Redis (rounds "
            f"{min(ratios):.2f}-{max(ratios):.2f}; target at least 0.85). Both stores send each script on a "
            "connection held per process and thread (on the Cluster one per primary, to the node of the "
            "key's slot). What bounds the Cluster's figure: its second round trip (the credential's entry, "
            "then its user's epoch and budgets in the user's slot, docs/decisions/scale-out.md), each a "
            "loopback exchange with a redis-server on the same two cores; the rest of the request (the "
            "middleware, the view, the JSON) is the same Python in both.\n",
        )
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--duration", type=float, default=3.0)
    parser.add_argument("--write-docs", action="store_true")
    arguments = parser.parse_args()
    sys.exit(main(rounds=arguments.rounds, duration=arguments.duration, docs_wanted=arguments.write_docs))
