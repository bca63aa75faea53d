"""Beyond one machine: `GET /v1/me` and a ledger page on one Redis and on a Redis Cluster, and
two nodes against one, in one run (``make bench`` runs it after the main run).

    python -m bench.nodes [--rounds 3] [--duration 5] [--write-docs]

Three gunicorn services of production's settings and worker count on one copy of the small
data set (the main run's kept template, built if missing): one on the local Redis, two on a
three-primary Redis Cluster this run starts on free loopback ports (tests/ratelimit/redis_server.py)
and stops. Per case and round, in turn (the order reversing every round): the service on one
Redis, the first cluster node alone, and both cluster nodes at once, each loaded by its own
wrk with the same connections as the node alone (what a balancer in front of two nodes gives
them under twice the clients). The pair's figure is the sum of both. Redis round trips per request
are the scripts ``INFO commandstats`` counts on every Redis the service uses. The limiter makes its full
round trips with roomy budgets (bench/roomy_store.py), as in the main run. With --write-docs the
figures replace the section "Beyond one machine" of docs/performance.md.
"""

import argparse
import json
import os
import runpy
import shutil
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import redis

from bench import cases, databases, docs, servers
from bench.measure import Server, parse_wrk, process, send_all, wrk

ROOT = Path(__file__).resolve().parent.parent
DATABASE = "bench_nodes"
PORTS = {"one": 8111, "cluster": 8112, "second": 8113}
CASES = {"me_key": "GET /v1/me, API key", "ledger": "GET /v1/balance_transactions?limit=10"}
ENTRIES = ("one", "cluster", "pair")
LABELS = {
    "one": "one node, one Redis",
    "cluster": "one node, Redis Cluster (3 primaries)",
    "pair": "two nodes, Redis Cluster (3 primaries)",
}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=5, help="seconds per round")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--users", type=int, default=3000, help="as bench.run's (its kept templates)")
    parser.add_argument("--write-docs", action="store_true")
    return parser.parse_args()


def script_calls(urls: list[str]) -> int:
    """Scripts every node has run so far. The hot path sends nothing but scripts (EVALSHA), one per
    round trip; the commands a script runs inside Redis count in INFO too, so only these are read."""
    total = 0
    for url in urls:
        stats = redis.Redis.from_url(url).info("commandstats")
        total += sum(v["calls"] for k, v in stats.items() if k.startswith(("cmdstat_eval", "cmdstat_fcall")))
    return total


class NodesBench:
    def __init__(self, args, workdir: Path):
        self.args, self.workdir = args, workdir
        self.workers = runpy.run_path(str(ROOT / "gunicorn.conf.py"))["workers"]
        self.servers = {name: Server(f"nodes-{name}", port) for name, port in PORTS.items()}
        self.rps = {(case, entry): [] for case in CASES for entry in ENTRIES}
        self.p99 = {(case, entry): [] for case in CASES for entry in ENTRIES}
        self.round_trips: dict[tuple[str, str], float] = {}

    def prepare(self) -> dict:
        url = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench")
        base = servers.service_env(url, "rln")
        templates, _ = databases.templates_ensure(base, self.args.users)
        databases.create(url, DATABASE, template=templates["small"])
        env = servers.service_env(databases.with_name(url, DATABASE), "rln")
        servers.django_run("bench.setup_data", "renew", self.workdir, env=env)
        self.lines = cases.case_lines(json.loads((self.workdir / "fixture.json").read_text()))
        self.files = {case: cases.write_lines(self.workdir, f"nodes-{case}", self.lines[case]) for case in CASES}
        return env

    def round_on(self, case: str, entry: str) -> None:
        load = [self.servers["cluster"], self.servers["second"]] if entry == "pair" else [self.servers[entry]]
        with ThreadPoolExecutor(len(load)) as pool:
            outputs = list(pool.map(self._wrk_on(case), load))
        parsed = [parse_wrk(out) for out in outputs]
        errors = sum(p[3] for p in parsed)
        if errors:
            print(f"{entry} {case}: {errors} failed requests", file=sys.stderr)
        rps = sum(p[0] for p in parsed)
        p99 = max(p[2] for p in parsed)
        print(f"  round: {case:<8} {LABELS[entry]:<40} {rps:>7.0f} req/s  p99 {p99:6.2f} ms", flush=True)
        self.rps[(case, entry)].append(rps)
        self.p99[(case, entry)].append(p99)

    def _wrk_on(self, case: str):
        def run(server: Server) -> str:
            return wrk(
                self.files[case],
                server,
                duration=self.args.duration,
                connections=self.args.connections,
                threads=self.args.threads,
            )

        return run

    def count_round_trips(self, case: str, entry: str, redis_urls: list[str]) -> None:
        """Redis round trips per request: each line once more, sequentially, the credentials cached."""
        server = self.servers[entry]
        before = script_calls(redis_urls)
        send_all(self.lines[case], server, connections=1)
        self.round_trips[(case, entry)] = (script_calls(redis_urls) - before) / len(self.lines[case])

    def run(self) -> None:
        env = self.prepare()
        one_redis = {**env, "RATELIMIT_KEY_PREFIX": "rln1"}
        servers.flush_redis(one_redis["REDIS_URL"])
        from tests.ratelimit.redis_server import RedisCluster

        with ExitStack() as stack:
            directory = stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-cluster-"))
            cluster = RedisCluster(Path(directory))
            cluster.start()
            stack.callback(cluster.stop)
            on_cluster = {**env, **cluster.env, "RATELIMIT_STORE": "bench.roomy_store.RoomyRedisClusterStore"}
            for name, service_env in (("one", one_redis), ("cluster", on_cluster), ("second", on_cluster)):
                server = self.servers[name]
                command = servers.gunicorn("config.wsgi", server.port, self.workers)
                stack.enter_context(process(server, command, service_env, "/bench/floor"))
            cluster_urls = [f"redis://127.0.0.1:{port}/0" for port in cluster.ports]
            for case in CASES:
                # Twice: a user's first lookup makes its revocation epoch, the second caches the credential.
                for name in ("one", "cluster", "second", "one", "cluster"):
                    send_all(self.lines[case], self.servers[name], connections=self.args.connections)
                self.count_round_trips(case, "one", [one_redis["REDIS_URL"]])
                self.count_round_trips(case, "cluster", cluster_urls)
                for number in range(self.args.rounds):
                    # Cached afresh before each round: entries live 60 s from their fill (bench/servers.py).
                    servers.forget_cached_credentials(one_redis["REDIS_URL"], "rln1")
                    for url in cluster_urls:
                        servers.forget_cached_credentials(url, "rln")
                    for name in ("one", "cluster"):
                        send_all(self.lines[case], self.servers[name], connections=self.args.connections)
                    for entry in ENTRIES if number % 2 == 0 else reversed(ENTRIES):
                        self.round_on(case, entry)

    def rows(self) -> list[str]:
        out = []
        for case, label in CASES.items():
            alone = statistics.median(self.rps[(case, "one")])
            on_cluster = statistics.median(self.rps[(case, "cluster")])
            for entry in ENTRIES:
                rps = statistics.median(self.rps[(case, entry)])
                p99 = statistics.median(self.p99[(case, entry)])
                round_trips = self.round_trips.get((case, "cluster" if entry == "pair" else entry))
                versus = f"{rps / alone:.2f}" if entry == "cluster" else ""
                pair = f"{rps / on_cluster:.2f}" if entry == "pair" else ""
                out.append(
                    f"| {label} | {LABELS[entry]} | {rps:.0f} | {p99:.2f} | {versus} | {pair} | {round_trips:.2f} |"
                )
        return out


def section(bench: NodesBench, args) -> str:
    rows = "\n".join(bench.rows())
    return f"""## Beyond one machine

From `python -m bench.nodes --write-docs` ({docs.machine_line()}): three gunicorn services of
production's settings ({bench.workers} sync workers each) on one copy of the small data set, one on
the local Redis, two on a three-primary Redis Cluster the run starts on loopback; wrk {args.threads}
threads, {args.connections} connections per node, {args.rounds} rounds of {args.duration} s, the three
entries taken in turn within each round, medians. "Cluster / one" is the node on the Cluster over the
node on one Redis; "pair / one node" is both cluster nodes at once (each loaded as the node alone,
the sum) over the first one alone. Redis round trips per request are the scripts (EVALSHA, all the
hot path sends) counted on every Redis the service uses, each line sent once more, warm.

| read | where | req/s | p99 ms | cluster / one | pair / one node | Redis round trips per request |
|---|---|---:|---:|---:|---:|---:|
{rows}

What bounds these figures: every process of the run (the nodes' workers, PostgreSQL, every Redis
and wrk) shares this machine's {os.cpu_count()} cores, which one node already keeps busy, so a
second node adds no capacity here: the pair's ratio is what two nodes lose to each other on one
machine (the shared Redis and database, and twice the workers and load generators time-slicing
the same cores; 1 would be nothing), not what a node on a machine of its own would add.
On the Cluster a credential lookup is two round trips where one Redis takes one: the credential's
entry and its user's budgets live in different slots, and the user is not known until the entry is
read (docs/decisions/scale-out.md). Each goes over a connection the store holds per primary, per
process and thread, as the one-Redis store holds its one.
"""


def main() -> int:
    args = parse_args()
    if not shutil.which("wrk") or not shutil.which("redis-server"):
        print("wrk and redis-server are needed", file=sys.stderr)
        return 2
    busy = [port for port in PORTS.values() if servers.port_in_use(port)]
    if busy:
        print(f"port {', '.join(map(str, busy))} in use: another benchmark is running", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="bench-nodes-"))
    bench = NodesBench(args, workdir)
    try:
        bench.run()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    text = section(bench, args)
    print(text)
    if args.write_docs:
        docs.replace_section("Beyond one machine", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
