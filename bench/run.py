"""One command (`make bench`): start the service as in production and measure it against its peers.

Starts gunicorn (production settings, PostgreSQL, Redis) twice, on a small and a large data
set, with the MCP SDK's own server as the /mcp peer and stock django-oauth-toolkit as the
token endpoint's peer. Each read case runs at both sizes in rounds taken in turn with its
reference (the floor, a bare Django view; for /mcp the SDK peer); each token exchange in
rounds taken in turn with the stock peer's. Prints medians, ratios, growth with the data,
SQL statements per exchange, each worker's resident memory, the targets met or not, and
with --write-docs writes the report to docs/performance.md.
"""

import argparse
import json
import os
import runpy
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from bench import cases, databases, report
from bench.measure import Floor, Result, Server, in_turn, process, report_line, run_round, send_all, wrk
from bench.memory import WorkerMemory

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
BASE_URL = "http://127.0.0.1:8101"  # what the service advertises; the tokens' resources name it
PORTS = {"large": 8101, "sdk": 8102, "small": 8103, "dot": 8104}
SIZES = ("small", "large")
PEER_DATABASE = "bench_peer"


def service_env(database_url: str, key_prefix: str) -> dict:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "0",
        "SECRET_KEY": SECRET_KEY,
        "BASE_URL": BASE_URL,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": database_url,
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15"),
        "RATELIMIT_STORE": "bench.roomy_store.RoomyRedisStore",
        "RATELIMIT_KEY_PREFIX": key_prefix,
        "TRUSTED_PROXIES": "127.0.0.1/32",
        "BENCH_FLOOR": "1",
        "LOG_LEVEL": "WARNING",
    }


SECRET_KEY = secrets.token_urlsafe(50)


def peer_env(database_url: str) -> dict:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bench.dot_peer.settings",
        "SECRET_KEY": SECRET_KEY,
        "DATABASE_URL": databases.with_name(database_url, PEER_DATABASE),
    }


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


def django_run(module: str, *argv, env: dict) -> None:
    subprocess.run([PY, "-m", module, *map(str, argv)], cwd=ROOT, env=env, check=True)


def prepare_peer_database(env: dict) -> None:
    databases.create(env["DATABASE_URL"], PEER_DATABASE)
    dot = peer_env(env["DATABASE_URL"])
    django_run("django", "migrate", "-v0", env=dot)
    django_run("bench.dot_peer.setup_data", "prepare", env=dot)


def flush_redis(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()


def gunicorn(module: str, port: int, workers: int) -> list[str]:
    return [
        PY, "-m", "gunicorn", module, "--workers", str(workers), "--bind", f"127.0.0.1:{port}",
        "--log-level", "warning",
    ]  # fmt: skip


def main() -> int:
    args = parse_args()
    if not shutil.which("wrk"):
        print("wrk is needed: apt-get install wrk", file=sys.stderr)
        return 2
    started = time.monotonic()
    timings: dict[str, float] = {}
    workdir = Path(tempfile.mkdtemp(prefix="bench-"))
    default_url = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench")
    base_env = service_env(default_url, "rl")

    # --- Data: kept templates, fresh copies ----------------------------------------------
    templates, built = databases.templates_ensure(base_env, args.users, args.data_scale, rebuild=args.rebuild)
    timings["data build"] = built
    mark = time.monotonic()
    urls = databases.clone_for_run(base_env, templates)
    envs = {size: service_env(urls[size], {"small": "rls", "large": "rl"}[size]) for size in SIZES}
    fixtures = {}
    for size in SIZES:
        out = workdir / size
        out.mkdir()
        django_run("bench.setup_data", "renew", out, env=envs[size])
        fixtures[size] = json.loads((out / "fixture.json").read_text())
    flush_redis(base_env["REDIS_URL"])
    if not args.no_tokens:
        prepare_peer_database(base_env)
    timings["data copy"] = time.monotonic() - mark

    lines = {size: cases.case_lines(fixtures[size]) for size in SIZES}
    files = {
        (case.key, size): cases.write_lines(workdir, f"{case.key}-{size}", lines[size][case.key])
        for case in args.case_list
        for size in SIZES
    }
    floor_lines = cases.write_lines(workdir, "floor", ["GET\t/bench/floor\t\t"])
    round_trip_lines = cases.write_lines(workdir, "round_trip", ["GET\t/bench/floor-round-trip\t\t"])
    peer_lines = cases.write_lines(workdir, "peer", [f"POST\t/mcp\t{cases.MCP_HEADERS}\t{cases.PEER_CALL}"])

    servers = {name: Server(name, port) for name, port in PORTS.items()}
    large, small, sdk = servers["large"], servers["small"], servers["sdk"]
    on = {"small": small, "large": large}
    uvicorn = [
        PY, "-m", "uvicorn", "bench.peer_mcp:app", "--loop", "uvloop", "--http", "httptools",
        "--workers", str(args.workers), "--port", str(sdk.port), "--log-level", "warning", "--no-access-log",
    ]  # fmt: skip
    results: dict[tuple[str, str], Result] = {}
    references: dict[str, Result] = {}
    floor_pool, peer_pool = Result("floor: bare Django JSON view"), Result("peer: SDK MCPServer whoami, no auth")
    calibration = Result("calibration: the floor plus one no-op Redis EVALSHA")
    floor = Floor()
    memory = {size: WorkerMemory(f"service, {size} data set") for size in SIZES}

    with ExitStack() as stack:
        stack.enter_context(
            process(large, gunicorn("config.wsgi", large.port, args.workers), envs["large"], "/bench/floor")
        )
        stack.enter_context(process(sdk, uvicorn, {**os.environ}, "/mcp"))
        with process(small, gunicorn("config.wsgi", small.port, args.workers), envs["small"], "/bench/floor"):
            mark = time.monotonic()
            for path, server in (
                (floor_lines, large),
                (round_trip_lines, large),
                (floor_lines, small),
                (peer_lines, sdk),
            ):
                wrk(path, server, duration=2, connections=args.connections, threads=args.threads)
            # A user's first credential lookup only creates the user's revocation epoch (kept a day);
            # the next one caches. One pass with each user's OAuth token creates every epoch now, so
            # each case's own warm-up below presents its credentials once. (OAuth tokens: an API key
            # presented now would be due its once-a-minute last-use stamp in some later round.)
            for size in SIZES:
                send_all(lines[size]["me_oauth"], on[size], connections=args.connections)
            # Memory after warm-up: each worker has served every case a few times.
            for size in SIZES:
                sample = [line for case in args.case_list for line in lines[size][case.key][:40]]
                mixed = cases.write_lines(workdir, f"mixed-{size}", sample)
                wrk(mixed, on[size], duration=3, connections=args.connections, threads=args.threads)
                memory[size].read(on[size].pid, on[size].served)
            timings["warm-up"] = time.monotonic() - mark

            mark = time.monotonic()
            reference_calibration = references["calibration"] = Result("reference of the calibration")
            in_turn([(reference_calibration, floor_lines, large), (calibration, round_trip_lines, large)], args, floor)
            floor_pool.add(reference_calibration)
            for case in args.case_list:
                # Each credential is presented once right before its own rounds, so it is cached
                # (entries live 60 s) and its key's last-use stamp is written now, not mid-round.
                for size in SIZES:
                    send_all(lines[size][case.key], on[size], connections=args.connections)
                reference = references[case.key] = Result(f"reference of {case.key}")
                ref_lines, ref_server = (peer_lines, sdk) if case.reference == "peer" else (floor_lines, large)
                entries = [(reference, ref_lines, ref_server)]
                for size in SIZES:
                    results[(case.key, size)] = Result(f"{case.name} ({size})")
                    entries.append((results[(case.key, size)], files[(case.key, size)], on[size]))
                in_turn(entries, args, floor if case.reference == "floor" else None)
                (peer_pool if case.reference == "peer" else floor_pool).add(reference)
            timings["read cases"] = time.monotonic() - mark

            # Memory after many requests: each server topped up to --memory-requests with every case,
            # read, then given half as many again and read once more. A leak keeps growing between the
            # last two readings; caches that fill (bounded per-process caches) have stopped by then.
            mark = time.monotonic()
            for size in SIZES:
                server, mixed = on[size], workdir / f"mixed-{size}.lines"
                mixed.write_text("\n".join(cases.interleave([lines[size][c.key] for c in args.case_list])) + "\n")
                for target in (args.memory_requests, None):
                    target = target or server.served + args.memory_requests // 2
                    top_up(mixed, server, target, args)
                    memory[size].read(server.pid, server.served)
            timings["memory top-up"] = time.monotonic() - mark

        for result in [floor_pool, calibration, peer_pool, *results.values()]:
            print(report_line(result), flush=True)

        tokens = {}
        if not args.no_tokens:
            mark = time.monotonic()
            dot = servers["dot"]
            stack.enter_context(
                process(
                    dot, gunicorn("bench.dot_peer.wsgi", dot.port, args.workers), peer_env(default_url), "/o/token/"
                )
            )
            tokens = token_rounds(args, workdir, envs["large"], large, dot)
            timings["token rounds"] = time.monotonic() - mark

    statements = {}
    if not args.no_tokens:
        mark = time.monotonic()
        statements = count_statements(args, workdir, envs["large"], peer_env(default_url))
        timings["statements"] = time.monotonic() - mark
    timings["total"] = time.monotonic() - started

    run = report.Run(
        args=args,
        cases=args.case_list,
        results=results,
        references=references,
        floor=floor_pool,
        peer=peer_pool,
        calibration=calibration,
        noise=floor.noise(),
        tokens=tokens,
        statements=statements,
        memory=memory,
        sizes={size: fixtures[size] for size in SIZES},
        timings=timings,
    )
    text = report.render(run)
    print(text)
    if args.write_docs:
        report.write_docs(text, run)
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


def top_up(lines: Path, server: Server, target: int, args) -> None:
    """Load ``server`` with ``lines`` until it has been sent ``target`` requests in all."""
    rate = 500.0  # requests a second, until measured
    while server.served < target:
        seconds = min(120, max(2, (target - server.served) / rate))
        before, begun = server.served, time.monotonic()
        wrk(lines, server, duration=seconds, connections=args.connections, threads=args.threads)
        rate = max(50.0, (server.served - before) / (time.monotonic() - begun))


TOKEN_KINDS = (
    ("refresh", "refresh", "POST /oauth/token refresh_token"),
    ("code", "codes", "POST /oauth/token authorization_code"),
)


def token_rounds(args, workdir: Path, env: dict, ours: Server, dot: Server) -> dict:
    """Refresh and code exchanges, ours and stock DOT's in turn. Refresh tokens and codes are
    single use (codes live 60 s): a fresh set is minted for both right before each round."""
    per_round = int(max(2000, 600 * args.duration))
    tokens = {}
    for key, kind, name in TOKEN_KINDS:
        mine, theirs = Result(name), Result(f"{name}, stock django-oauth-toolkit")
        for number in range(args.rounds):
            django_run("bench.setup_data", kind, per_round, workdir / "ours", env=env)
            django_run("bench.dot_peer.setup_data", kind, per_round, workdir / "dot", env=peer_env(env["DATABASE_URL"]))
            pair = [(mine, workdir / "ours" / f"{kind}.lines", ours), (theirs, workdir / "dot" / f"{kind}.lines", dot)]
            for result, path, server in pair if number % 2 == 0 else reversed(pair):
                run_round(result, path, server, args)
        tokens[key] = (mine, theirs)
        print(report_line(mine), flush=True)
        print(report_line(theirs), flush=True)
    return tokens


def count_statements(args, workdir: Path, env: dict, dot_env: dict) -> dict:
    """SQL statements per exchange, ours and the peer's, each replayed in-process (bench/statements.py)."""
    counted = {}
    n = args.statement_samples + 1
    for side, module, side_env, port in (
        ("ours", "bench.setup_data", env, PORTS["large"]),
        ("dot", "bench.dot_peer.setup_data", dot_env, PORTS["dot"]),
    ):
        out = workdir / f"statements-{side}"
        for key, kind, _ in TOKEN_KINDS:
            django_run(module, kind, n, out, env=side_env)
            answer = subprocess.run(
                [PY, "-m", "bench.statements", str(out / f"{kind}.lines"), str(args.statement_samples)],
                cwd=ROOT,
                env={**side_env, "BENCH_PORT": str(port)},
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            counted[(side, key)] = json.loads(answer.strip().splitlines()[-1])
    return counted


if __name__ == "__main__":
    sys.exit(main())
