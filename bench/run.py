"""One command (`make bench`): start the service as in production and measure it against its peers.

Starts gunicorn (production settings, PostgreSQL, Redis) twice, on a small and a large data
set, with the MCP SDK's own server as the /mcp peer and stock django-oauth-toolkit as the
token endpoint's peer. Each read case runs at both sizes in rounds taken in turn with its
reference (the floor, a bare Django view; for /mcp the SDK peer); each token exchange in
rounds taken in turn with the stock peer's. Prints medians, ratios, growth with the data,
SQL statements per exchange, each worker's resident memory, the targets met or not, and
with --write-docs writes the report to docs/performance.md. bench/NOTES.md says why it
measures this way.
"""

import argparse
import json
import os
import runpy
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from bench import cases, databases, docs, report, servers, tokens
from bench.measure import Floor, Result, Server, in_turn, process, report_line, send_all, wrk
from bench.memory import WorkerMemory

ROOT = Path(__file__).resolve().parent.parent
SIZES = ("small", "large")
KEY_PREFIXES = {"small": "rls", "large": "rl"}  # each set's own keys in the one Redis database


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--workers", type=int, default=None, help="default: production's count (gunicorn.conf.py), for the peers too"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=5, help="seconds per round")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--users", type=int, default=3000, help="accounts of the large set (the small has a tenth)")
    parser.add_argument(
        "--memory-requests", type=int, default=100_000, help="requests per server before RSS is read again"
    )
    parser.add_argument("--statement-samples", type=int, default=20)
    parser.add_argument("--cases", default="", help="comma-separated read cases to run (default: all)")
    parser.add_argument("--no-tokens", action="store_true", help="skip the token endpoint and its peer")
    parser.add_argument(
        "--data-scale", type=float, default=1.0, help="rows of both sets times this (a quick trial: 0.05)"
    )
    parser.add_argument("--rebuild", action="store_true", help="build the data sets anew even if kept")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    args.production_workers = args.workers is None
    args.workers = args.workers or runpy.run_path(str(ROOT / "gunicorn.conf.py"))["workers"]
    chosen = [c for c in args.cases.split(",") if c]
    unknown = set(chosen) - {c.key for c in cases.CASES}
    if unknown:
        parser.error(f"unknown cases: {', '.join(sorted(unknown))}")
    args.case_list = [c for c in cases.CASES if not chosen or c.key in chosen]
    return args


class Bench:
    """One run's state: the data sets, the servers, the lines and what was measured."""

    def __init__(self, args, workdir: Path):
        self.args, self.workdir = args, workdir
        self.timings: dict[str, float] = {}
        self.database_url = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench")
        self.servers = {name: Server(name, port) for name, port in servers.PORTS.items()}
        self.on = {"small": self.servers["small"], "large": self.servers["large"]}
        self.results: dict[tuple[str, str], Result] = {}
        self.references: dict[str, Result] = {}
        self.floor_pool = Result("floor: bare Django JSON view")
        self.peer_pool = Result("peer: SDK MCPServer whoami, no auth")
        self.calibration = Result("calibration: the floor plus one no-op Redis EVALSHA")
        self.floor = Floor()
        # The floor on the small set's service and on the large set's, rounds taken in turn.
        self.server_floors = (Result("floor, small set's service"), Result("floor, large set's service"))
        self.memory = {size: WorkerMemory(f"service, {size} data set") for size in SIZES}
        self.tokens: dict = {}
        self.statements: dict = {}
        # The reads' references, each in turn with the case: the stock DRF peer and the limit.
        self.drf: dict[str, Result] = {}
        self.limits: dict[str, Result] = {}
        self.beside: dict[str, Result] = {}  # /mcp cases: the /v1 case they are held to, in turn
        self.read_statements: dict = {}

    def timed(self, name: str, started: float) -> None:
        self.timings[name] = time.monotonic() - started

    def wrk(self, lines: Path, server: Server, duration: float) -> None:
        wrk(lines, server, duration=duration, connections=self.args.connections, threads=self.args.threads)

    # --- Data ---------------------------------------------------------------------------

    def prepare(self) -> None:
        """Kept templates (built if missing), fresh copies, current credentials, the peer's database."""
        args = self.args
        base = servers.service_env(self.database_url, KEY_PREFIXES["large"])
        templates, self.timings["data build"] = databases.templates_ensure(
            base, args.users, args.data_scale, rebuild=args.rebuild
        )
        mark = time.monotonic()
        urls = databases.clone_for_run(base, templates)
        self.envs = {size: servers.service_env(urls[size], KEY_PREFIXES[size]) for size in SIZES}
        self.fixtures = {}
        for size in SIZES:
            out = self.workdir / size
            out.mkdir()
            servers.django_run("bench.setup_data", "renew", out, env=self.envs[size])
            self.fixtures[size] = json.loads((out / "fixture.json").read_text())
        servers.flush_redis(base["REDIS_URL"])
        if not args.no_tokens:
            servers.prepare_peer_database(self.database_url)
        self.timed("data copy", mark)
        self.lines = {size: cases.case_lines(self.fixtures[size]) for size in SIZES}
        # The peer's lines: the cases' own, addressed to the host the tokens were issued for (the
        # service's BASE_URL): DOT checks an access token's audience (RFC 8707) against the request's URI.
        host = servers.BASE_URL.split("//", 1)[1]
        self.drf_files = {
            key: cases.write_lines(self.workdir, f"drf-{key}", [cases.with_host(line, host) for line in rows])
            for key, rows in self.lines["large"].items()
        }
        heavy = servers.user_ids(urls["large"], self.fixtures["large"]["heavy"])
        self.limit_files = {
            key: cases.write_lines(self.workdir, f"limit-{key}", rows)
            for key, rows in cases.limit_lines(self.fixtures["large"], heavy).items()
        }
        self.files = {
            (case.key, size): cases.write_lines(self.workdir, f"{case.key}-{size}", self.lines[size][case.key])
            for case in cases.CASES  # every case: an /mcp case runs a /v1 case's lines beside it
            for size in SIZES
        }
        self.floor_lines = cases.write_lines(self.workdir, "floor", ["GET\t/bench/floor\t\t"])
        self.round_trip_lines = cases.write_lines(self.workdir, "round_trip", ["GET\t/bench/floor-round-trip\t\t"])
        self.peer_lines = cases.write_lines(
            self.workdir, "peer", [f"POST\t/mcp\t{cases.MCP_HEADERS}\t{cases.PEER_CALL}"]
        )

    # --- Read cases ---------------------------------------------------------------------

    def warm_up(self) -> None:
        mark = time.monotonic()
        large, small, sdk = self.on["large"], self.on["small"], self.servers["sdk"]
        for path, server in (
            (self.floor_lines, large),
            (self.round_trip_lines, large),
            (self.floor_lines, small),
            (self.peer_lines, sdk),
        ):
            self.wrk(path, server, 2)
        # A user's first credential lookup only creates the user's revocation epoch (kept a day);
        # the next one caches. One pass with each user's OAuth token creates every epoch now, so
        # each case's own warm-up presents its credentials once. (OAuth tokens: an API key
        # presented now would be due its once-a-minute last-use stamp in some later round.)
        for size in SIZES:
            send_all(self.lines[size]["me_oauth"], self.on[size], connections=self.args.connections)
        # Memory after warm-up: each worker has served every case a few times.
        for size in SIZES:
            sample = [line for case in self.args.case_list for line in self.lines[size][case.key][:40]]
            self.wrk(cases.write_lines(self.workdir, f"sample-{size}", sample), self.on[size], 3)
            self.memory[size].read(self.on[size].pid, self.on[size].served)
        self.timed("warm-up", mark)

    def read_cases(self) -> None:
        mark = time.monotonic()
        args, large, sdk = self.args, self.on["large"], self.servers["sdk"]
        reference = self.references["calibration"] = Result("reference of the calibration")
        in_turn(
            [(reference, self.floor_lines, large), (self.calibration, self.round_trip_lines, large)], args, self.floor
        )
        self.floor_pool.add(reference)
        self.servers_compared()
        for case in args.case_list:
            # Before each round of a case its credentials are cached afresh (entries live 60 s from their
            # fill, a case's rounds take longer) and its keys' last-use stamps written then, not
            # mid-round; a /v1 case run beside an /mcp case has its own presented too.
            def present(case=case):
                for size in SIZES:
                    servers.forget_cached_credentials(self.envs[size]["REDIS_URL"], KEY_PREFIXES[size])
                    send_all(self.lines[size][case.key], self.on[size], connections=args.connections)
                if case.beside:
                    send_all(self.lines["large"][case.beside], self.on["large"], connections=args.connections)

            by_peer = case.reference == "peer"
            reference = self.references[case.key] = Result(f"reference of {case.key}")
            entries = [(reference, self.peer_lines, sdk) if by_peer else (reference, self.floor_lines, large)]
            if case.references:
                drf = self.servers["drf"]
                drf_lines = self.drf_files[case.key].read_text().splitlines()
                send_all(drf_lines, drf, connections=args.connections)
                self.limits[case.key] = Result(f"limit of {case.key}")
                self.drf[case.key] = Result(f"stock DRF peer: {case.name}")
                entries.append((self.limits[case.key], self.limit_files[case.key], large))
                entries.append((self.drf[case.key], self.drf_files[case.key], drf))
            if case.beside:
                self.beside[case.key] = Result(f"{case.beside} (large), in turn with {case.key}")
                entries.append((self.beside[case.key], self.files[(case.beside, "large")], large))
            for size in SIZES:
                self.results[(case.key, size)] = Result(f"{case.name} ({size})")
                entries.append((self.results[(case.key, size)], self.files[(case.key, size)], self.on[size]))
            in_turn(entries, args, None if by_peer else self.floor, before_round=present)
            (self.peer_pool if by_peer else self.floor_pool).add(reference)
        self.servers_compared()
        self.timed("read cases", mark)

    def servers_compared(self) -> None:
        """The floor on both services, in turn. Two gunicorn instances of the same code differ by a
        few per cent in one run (the one started first was slower in every trial, bench/NOTES.md);
        growth is corrected by what identical work shows between them."""
        on_large, on_small = Result("floor on the large set's service"), Result("floor on the small set's service")
        in_turn([(on_large, self.floor_lines, self.on["large"]), (on_small, self.floor_lines, self.on["small"])],
                self.args, self.floor)  # fmt: skip
        self.floor_pool.add(on_large)
        self.server_floors[0].add(on_small)
        self.server_floors[1].add(on_large)

    def memory_top_up(self) -> None:
        """Each server topped up to --memory-requests with every case in equal shares, read, then given
        half as many again and read once more: a leak keeps growing between the last two readings;
        bounded per-process caches have stopped filling by then."""
        mark = time.monotonic()
        for size in SIZES:
            server = self.on[size]
            mixed = cases.interleave([self.lines[size][c.key] for c in self.args.case_list])
            path = cases.write_lines(self.workdir, f"mixed-{size}", mixed)
            for target in (self.args.memory_requests, None):
                self.top_up(path, server, target or server.served + self.args.memory_requests // 2)
                self.memory[size].read(server.pid, server.served)
        self.timed("memory top-up", mark)

    def top_up(self, lines: Path, server: Server, target: int) -> None:
        rate = 500.0  # requests a second, until measured
        while server.served < target:
            seconds = min(120, max(2, (target - server.served) / rate))
            before, begun = server.served, time.monotonic()
            self.wrk(lines, server, seconds)
            rate = max(50.0, (server.served - before) / (time.monotonic() - begun))

    # --- The run ------------------------------------------------------------------------

    def service(self, size: str):
        server = self.on[size]
        command = servers.gunicorn("config.wsgi", server.port, self.args.workers)
        return process(server, command, self.envs[size], "/bench/floor")

    def count_read_statements(self) -> None:
        """SQL statements per request of each read, ours and the stock DRF peer's (bench/statements.py)."""
        mark = time.monotonic()
        n = self.args.statement_samples
        for case in self.args.case_list:
            if not case.references:
                continue
            for side, env, path in (
                ("ours", self.envs["large"], self.files[(case.key, "large")]),
                ("drf", servers.drf_env(self.envs["large"]), self.drf_files[case.key]),
            ):
                answer = subprocess.run(
                    [servers.PY, "-m", "bench.statements", str(path), str(n)],
                    cwd=ROOT, env={**env, "BENCH_PORT": str(servers.PORTS["large"])},
                    check=True, capture_output=True, text=True,
                ).stdout  # fmt: skip
                self.read_statements[(side, case.key)] = json.loads(answer.strip().splitlines()[-1])
        self.timed("read statements", mark)

    def run(self) -> report.Run:
        args, started = self.args, time.monotonic()
        self.prepare()
        large, sdk, dot = (self.servers[name] for name in ("large", "sdk", "dot"))
        with ExitStack() as stack:
            stack.enter_context(self.service("large"))
            stack.enter_context(process(sdk, servers.uvicorn_peer(sdk.port, args.workers), {**os.environ}, "/mcp"))
            if any(case.references for case in args.case_list):
                drf = self.servers["drf"]
                command = servers.gunicorn("bench.drf_peer.wsgi", drf.port, args.workers)
                stack.enter_context(process(drf, command, servers.drf_env(self.envs["large"]), "/v1/me"))
            with self.service("small"):
                self.warm_up()
                self.read_cases()
                self.memory_top_up()
            results = [*self.results.values(), *self.limits.values(), *self.drf.values(), *self.beside.values()]
            for result in [self.floor_pool, self.calibration, self.peer_pool, *results]:
                print(report_line(result), flush=True)
            if not args.no_tokens:
                mark = time.monotonic()
                command = servers.gunicorn("bench.dot_peer.wsgi", dot.port, args.workers)
                stack.enter_context(process(dot, command, servers.peer_env(self.database_url), "/o/token/"))
                self.tokens = tokens.token_rounds(args, self.workdir, self.envs["large"], large, dot)
                self.timed("token rounds", mark)
        self.count_read_statements()
        if not args.no_tokens:
            mark = time.monotonic()
            self.statements = tokens.count_statements(args, self.workdir, self.envs["large"])
            self.timed("statements", mark)
        self.timed("total", started)
        return report.Run(
            args=args,
            cases=args.case_list,
            results=self.results,
            references=self.references,
            floor=self.floor_pool,
            peer=self.peer_pool,
            calibration=self.calibration,
            noise=self.floor.noise(),
            server_floors=self.server_floors,
            tokens=self.tokens,
            statements=self.statements,
            drf=self.drf,
            limits=self.limits,
            beside=self.beside,
            read_statements=self.read_statements,
            memory=self.memory,
            sizes=self.fixtures,
            timings=self.timings,
        )


def main() -> int:
    args = parse_args()
    if not shutil.which("wrk"):
        print("wrk is needed: apt-get install wrk", file=sys.stderr)
        return 2
    busy = servers.ports_in_use()
    if busy:
        ports = ", ".join(map(str, busy))
        print(f"port {ports} in use: another benchmark is running (it would lose its databases)", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="bench-"))
    try:
        run = Bench(args, workdir).run()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    text = report.render(run)
    print(text)
    if args.write_docs:
        docs.write_docs(text, run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
