"""One command (`make bench`): start the service as in production and measure it.

Starts gunicorn (production settings, PostgreSQL, Redis) and the MCP SDK's own
server as the peer, warms up, drives each case with wrk for several rounds and
prints median requests/s and p50/p99 latency, the ratios of the performance targets,
and writes the table to docs/performance.md.
"""

import argparse
import json
import os
import platform
import re
import runpy
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
APP_PORT, PEER_PORT = 8101, 8102
BASE = f"http://127.0.0.1:{APP_PORT}"
MCP_HEADERS = (
    "Content-Type: application/json|Accept: application/json, text/event-stream|MCP-Protocol-Version: 2025-11-25"
)
WHOAMI_CALL = json.dumps(
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "svc_whoami", "arguments": {}}}
)


@dataclass
class Result:
    name: str
    rps: list[float] = field(default_factory=list)
    p50: list[float] = field(default_factory=list)
    p99: list[float] = field(default_factory=list)
    errors: list[int] = field(default_factory=list)

    def add(self, other: "Result") -> None:
        self.rps += other.rps
        self.p50 += other.p50
        self.p99 += other.p99
        self.errors += other.errors

    @property
    def median_rps(self) -> float:
        return statistics.median(self.rps) if self.rps else 0.0

    @property
    def median_p50(self) -> float:
        return statistics.median(self.p50) if self.p50 else 0.0

    @property
    def median_p99(self) -> float:
        return statistics.median(self.p99) if self.p99 else 0.0


def parse_wrk(output: str, duration: float) -> tuple[float, float, float, int]:
    total = int(re.search(r"(\d+) requests in", output).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = int(bad.group(1)) if bad else 0
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    if socket_errors:
        errors += sum(int(x) for x in socket_errors.groups())
    elapsed = float(re.search(r"requests in ([\d.]+)(m?s)", output).group(1))
    unit = re.search(r"requests in [\d.]+(m?s)", output).group(1)
    elapsed = elapsed / 1000 if unit == "ms" else elapsed
    rps = (total - errors) / elapsed

    def latency(pct: str) -> float:
        value, unit = re.search(rf"\s{pct}%\s+([\d.]+)(us|ms|s)", output).groups()
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    return rps, latency("50"), latency("99"), errors


def wrk(lines_file: Path, url: str, *, duration: float, connections: int, threads: int) -> str:
    env = {**os.environ, "BENCH_LINES": str(lines_file), "BENCH_THREADS": str(threads)}
    cmd = [
        "wrk",
        f"-t{threads}",
        f"-c{connections}",
        f"-d{int(duration)}s",
        "--latency",
        "-s",
        str(ROOT / "bench" / "requests.lua"),
        url,
    ]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout


def wait_ready(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up")


@contextmanager
def process(cmd: list[str], env: dict, ready_url: str):
    # Logs go to a file: an unread pipe fills up and stalls the server mid-run.
    log = open(Path(tempfile.gettempdir()) / f"bench-{Path(cmd[2]).name}.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    try:
        wait_ready(ready_url)
        time.sleep(2)  # multi-worker servers accept before every worker is serving
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def service_env(workdir: Path) -> dict:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "BASE_URL": BASE,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench"),
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15"),
        "TRUSTED_PROXIES": "127.0.0.1/32",
        "BENCH_FLOOR": "1",
        "LOG_LEVEL": "WARNING",
    }


def reset_database(env: dict) -> None:
    import psycopg

    url = env["DATABASE_URL"]
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    subprocess.run([PY, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    import redis

    redis.Redis.from_url(env["REDIS_URL"]).flushdb()


def setup(kind: str, count: int, workdir: Path, env: dict) -> None:
    subprocess.run([PY, "-m", "bench.setup_data", kind, str(count), str(workdir)], cwd=ROOT, env=env, check=True)


def lines_file(workdir: Path, name: str, rows: list[str]) -> Path:
    path = workdir / name
    path.write_text("\n".join(rows) + "\n")
    return path


def warm(lines: Path, args) -> None:
    """Send every line twice, so each credential is in use (cached) before the rounds, however fast the machine.

    Twice: a user's first credential lookup only creates the user's revocation epoch, the next
    one caches (docs/decisions/credentials.md, "The credential cache"). wrk runs for a duration, and a
    duration that covers every line on a fast run does not on a slow one.
    """

    def send(line: str) -> int:
        method, path, headers, body = line.split("\t")
        request = urllib.request.Request(
            BASE + path,
            data=body.encode() or None,
            method=method,
            headers=dict(h.split(": ", 1) for h in headers.split("|") if h),
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status

    with ThreadPoolExecutor(max_workers=args.connections) as pool:
        statuses = list(pool.map(send, lines.read_text().splitlines() * 2))
    if set(statuses) != {200}:
        raise RuntimeError(f"warming {lines.name}: statuses {sorted(set(statuses))}")


def run_case(result: Result, lines: Path, url: str, args, *, rounds: int | None = None, quiet=False) -> Result:
    for _ in range(rounds or args.rounds):
        out = wrk(lines, url, duration=args.duration, connections=args.connections, threads=args.threads)
        rps, p50, p99, errors = parse_wrk(out, args.duration)
        if errors or not rps:
            print(f"{result.name}: {errors} failed requests\n{out}", file=sys.stderr)
        print(f"  round: {result.name[:38]:<38} {rps:>7.0f} req/s  p50 {p50:6.2f}  p99 {p99:6.2f}", flush=True)
        result.rps.append(rps)
        result.p50.append(p50)
        result.p99.append(p99)
        result.errors.append(errors)
    return result if quiet else report_case(result)


def report_case(result: Result) -> Result:
    print(
        f"{result.name:<40} {result.median_rps:>9.0f} req/s  p50 {result.median_p50:>7.2f} ms  "
        f"p99 {result.median_p99:>7.2f} ms  errors {sum(result.errors)}",
        flush=True,
    )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--workers", type=int, default=None, help="default: production's count (gunicorn.conf.py), for the peer too"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--users", type=int, default=3000)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    args.production_workers = args.workers is None
    args.workers = args.workers or runpy.run_path(str(ROOT / "gunicorn.conf.py"))["workers"]
    if not shutil.which("wrk"):
        print("wrk is needed: apt-get install wrk", file=sys.stderr)
        return 2

    workdir = Path(tempfile.mkdtemp(prefix="bench-"))
    env = service_env(workdir)
    reset_database(env)
    setup("users", args.users, workdir, env)
    creds = json.loads((workdir / "credentials.json").read_text())
    key_lines = lines_file(
        workdir, "me_key.lines", [f"GET\t/v1/me\tAuthorization: Bearer {c['api_key']}\t" for c in creds]
    )
    oauth_lines = lines_file(
        workdir, "me_oauth.lines", [f"GET\t/v1/me\tAuthorization: Bearer {c['v1']}\t" for c in creds]
    )
    mcp_lines = lines_file(
        workdir,
        "mcp.lines",
        [f"POST\t/mcp\t{MCP_HEADERS}|Authorization: Bearer {c['mcp']}\t{WHOAMI_CALL}" for c in creds],
    )
    floor_lines = lines_file(workdir, "floor.lines", ["GET\t/bench/floor\t\t"])
    round_trip_lines = lines_file(workdir, "round_trip.lines", ["GET\t/bench/floor-round-trip\t\t"])
    peer_call = WHOAMI_CALL.replace("svc_whoami", "whoami")
    peer_lines = lines_file(workdir, "peer.lines", [f"POST\t/mcp\t{MCP_HEADERS}\t{peer_call}"])

    gunicorn = [
        PY, "-m", "gunicorn", "config.wsgi", "--workers", str(args.workers), "--bind", f"127.0.0.1:{APP_PORT}",
        "--log-level", "warning",
    ]  # fmt: skip
    uvicorn = [
        PY, "-m", "uvicorn", "bench.peer_mcp:app", "--loop", "uvloop", "--http", "httptools",
        "--workers", str(args.workers), "--port", str(PEER_PORT), "--log-level", "warning", "--no-access-log",
    ]  # fmt: skip
    peer = f"http://127.0.0.1:{PEER_PORT}"
    # This virtual machine's speed drifts by tens of per cent from one minute to the next, so
    # every ratio compares rounds taken in turn over the same half minute: each case alternates
    # with its reference (the floor, or for /mcp the peer), right after its credentials were
    # presented (cache entries live 60 s; a pair of 3 rounds each takes about 30 s).
    pairs = [
        ("round_trip", "calibration: the floor plus one no-op Redis EVALSHA", round_trip_lines, None),
        ("me_key", "GET /v1/me, API key", key_lines, None),
        ("me_oauth", "GET /v1/me, OAuth access token", oauth_lines, None),
        ("mcp", "/mcp tools/call svc_whoami", mcp_lines, "peer"),
    ]
    results: dict[str, Result] = {"floor": Result("floor: bare Django JSON view")}
    results.update({key: Result(name) for key, name, _, _ in pairs})
    results["peer"] = Result("peer: SDK MCPServer whoami, no auth")
    references: dict[str, Result] = {}
    with process(gunicorn, env, f"{BASE}/bench/floor"), process(uvicorn, {**os.environ}, f"{peer}/mcp"):
        # Warm-up. Credentials are presented by warm() just before their own rounds only: an
        # API key presented earlier would be due its once-a-minute last-use stamp mid-round.
        for lines, url in ((floor_lines, BASE), (round_trip_lines, BASE), (peer_lines, peer)):
            wrk(lines, url, duration=2, connections=args.connections, threads=args.threads)
        for key, _, lines, reference in pairs:
            if lines is not round_trip_lines:
                warm(lines, args)
            ref_lines, ref_url = (peer_lines, peer) if reference == "peer" else (floor_lines, BASE)
            references[key] = Result(f"reference of {key}")
            for _ in range(args.rounds):
                run_case(references[key], ref_lines, ref_url, args, rounds=1, quiet=True)
                run_case(results[key], lines, BASE, args, rounds=1, quiet=True)
            results[reference or "floor"].add(references[key])
        for result in results.values():
            report_case(result)
        # Refresh tokens and codes are single use (codes live 60 s): mint a fresh
        # set right before each round, more than a round can spend.
        estimate = int(max(2000, 600 * args.duration))
        for key, kind, name in (
            ("refresh", "refresh", "POST /oauth/token refresh"),
            ("code", "codes", "POST /oauth/token authorization_code"),
        ):
            result = Result(name)
            for _ in range(args.rounds):
                setup(kind, estimate, workdir, env)
                run_case(result, workdir / f"{kind}.lines", BASE, args, rounds=1, quiet=True)
            results[key] = report_case(result)

    report = render(results, references, args)
    print(report)
    if args.write_docs:
        write_docs(report, args)
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


def render(results: dict[str, Result], references: dict[str, Result], args) -> str:
    def ratio(key: str, attr: str) -> float:
        return getattr(results[key], attr) / getattr(references[key], attr)

    rows = [
        "| case | median req/s | p50 ms | p99 ms | non-2xx |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in results.values():
        rows.append(f"| {r.name} | {r.median_rps:.0f} | {r.median_p50:.2f} | {r.median_p99:.2f} | {sum(r.errors)} |")
    targets = [
        ("GET /v1/me (API key) throughput / floor >= 0.5", ratio("me_key", "median_rps"), 0.5),
        ("GET /v1/me (OAuth) throughput / floor >= 0.5", ratio("me_oauth", "median_rps"), 0.5),
        ("GET /v1/me (API key) p99 / floor p99 <= 2", ratio("me_key", "median_p99"), -2),
        ("GET /v1/me (OAuth) p99 / floor p99 <= 2", ratio("me_oauth", "median_p99"), -2),
        ("/mcp svc_whoami / SDK peer >= 1", ratio("mcp", "median_rps"), 1.0),
        ("refresh exchanges per second >= 240", results["refresh"].median_rps, 240),
    ]
    rows += ["", "| target | measured | met |", "|---|---:|---|"]
    for name, value, bound in targets:
        met = value <= -bound if bound < 0 else value >= bound
        rows.append(f"| {name} | {value:.2f} | {'yes' if met else 'NO'} |")
    rows += [
        "",
        "Each ratio divides a case's medians by those of the rounds of its reference taken in turn "
        "with it (the floor row pools every floor round).",
        "",
        "Calibration, not a target: one no-op Redis round trip alone leaves the floor at "
        f"{ratio('round_trip', 'median_rps'):.2f} of its throughput (p99 {ratio('round_trip', 'median_p99'):.2f}x).",
    ]
    return "\n".join(rows)


def write_docs(report: str, args) -> None:
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    versions = ", ".join(
        f"{p} {version(p)}"
        for p in ("Django", "djangorestframework", "django-oauth-toolkit", "mcp", "gunicorn", "uvicorn")
    )
    wrk_version = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.splitlines()[0]
    (ROOT / "docs" / "performance.md").write_text(
        PERFORMANCE_HEADER.format(
            machine=machine,
            versions=versions,
            wrk=wrk_version,
            workers=args.workers,
            whose=" (production's count, gunicorn.conf.py)" if args.production_workers else "",
            rounds=args.rounds,
            duration=args.duration,
            connections=args.connections,
            threads=args.threads,
        )
        + report
        + "\n"
        + (ROOT / "bench" / "NOTES.md").read_text()
    )


PERFORMANCE_HEADER = """# Performance

Measured by `make bench` (bench/run.py) in one run on this machine: {machine}.
Versions: {versions}; {wrk}.
gunicorn sync workers: {workers}{whose}; the peer under uvicorn with uvloop and httptools, {workers} workers.
wrk: {threads} threads, {connections} connections, {rounds} rounds of {duration} s per case; medians shown.
Both servers run throughout; each read case alternates round by round with its reference (the floor; for /mcp the peer).
PostgreSQL and Redis local; production settings (DEBUG off).
The two tables right below come from this single run: the same code measured twice in a row
moves by up to 15 % on this kind of virtual machine (more on some; the runs compared further down).

"""

if __name__ == "__main__":
    sys.exit(main())
