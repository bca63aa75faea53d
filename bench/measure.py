"""Driving load: servers as subprocesses, wrk runs, warming credentials, rounds taken in turn."""

import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Server:
    name: str
    port: int
    pid: int = 0
    served: int = 0  # requests sent to it so far (wrk totals and warm-ups)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


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


@dataclass
class Floor:
    """Every round of the floor in the order taken: its round-to-round change is the run's noise."""

    rounds: list[float] = field(default_factory=list)

    def noise(self) -> float:
        """How much two rounds of the same work taken in turn differ: the 90th percentile of the
        relative change between consecutive floor rounds (0.08: 8 %)."""
        changes = sorted(abs(b / a - 1) for a, b in zip(self.rounds, self.rounds[1:], strict=False) if a and b)
        if not changes:
            return 0.0
        return changes[min(len(changes) - 1, round(0.9 * (len(changes) - 1)))]


def parse_wrk(output: str) -> tuple[float, float, float, int, int]:
    """requests/s of successful requests, p50 and p99 in ms, failed requests, all requests sent."""
    total = int(re.search(r"(\d+) requests in", output).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = int(bad.group(1)) if bad else 0
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    if socket_errors:
        errors += sum(int(x) for x in socket_errors.groups())
    # wrk writes the elapsed time in the unit that suits it: 850.00ms, 5.00s, 1.00m.
    value, unit = re.search(r"requests in ([\d.]+)(us|ms|s|m|h)\b", output).groups()
    elapsed = float(value) * {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}[unit]
    rps = max(0, total - errors) / elapsed

    def latency(pct: str) -> float:
        value, unit = re.search(rf"\s{pct}%\s+([\d.]+)(us|ms|s|m)\b", output).groups()
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]

    return rps, latency("50"), latency("99"), errors, total


def collected(callgrind_stderr: str) -> int:
    """The instructions callgrind's closing summary reports (``==pid== Collected : N``), 0 if none."""
    found = re.search(r"^==\d+== Collected\s*:\s*(\d+)\s*$", callgrind_stderr, re.MULTILINE)
    return int(found.group(1)) if found else 0


def wrk(lines_file: Path, server: Server, *, duration: float, connections: int, threads: int) -> str:
    env = {**os.environ, "BENCH_LINES": str(lines_file), "BENCH_THREADS": str(threads)}
    cmd = [
        "wrk", f"-t{threads}", f"-c{connections}", f"-d{max(1, int(duration))}s", "--latency",
        "-s", str(ROOT / "bench" / "requests.lua"), server.base,
    ]  # fmt: skip
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    server.served += parse_wrk(out)[4]
    return out


def wait_ready(url: str, timeout: float = 60) -> None:
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
def process(server: Server, cmd: list[str], env: dict, ready_path: str):
    # Logs go to a file: an unread pipe fills up and stalls the server mid-run.
    log_path = Path(tempfile.gettempdir()) / f"bench-{server.name}.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
        server.pid = proc.pid
        try:
            wait_ready(server.base + ready_path)
            time.sleep(2)  # multi-worker servers accept before every worker is serving
            yield server
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def send_all(lines: list[str], server: Server, *, connections: int, expect: int = 200) -> None:
    """Each line once, by a plain HTTP client; every answer must be ``expect``."""

    def send(line: str) -> int:
        method, path, headers, body = line.split("\t")
        request = urllib.request.Request(
            server.base + path,
            data=body.encode() or None,
            method=method,
            headers=dict(h.split(": ", 1) for h in headers.split("|") if h),
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    with ThreadPoolExecutor(max_workers=connections) as pool:
        statuses = list(pool.map(send, lines))
    server.served += len(lines)
    if set(statuses) != {expect}:
        counts = {status: statuses.count(status) for status in set(statuses)}
        raise RuntimeError(f"{server.name}: statuses {counts} (expected {expect})")


def run_round(result: Result, lines: Path, server: Server, args) -> None:
    out = wrk(lines, server, duration=args.duration, connections=args.connections, threads=args.threads)
    rps, p50, p99, errors, _ = parse_wrk(out)
    if errors or not rps:
        print(f"{result.name}: {errors} failed requests\n{out}", file=sys.stderr)
    print(f"  round: {result.name[:48]:<48} {rps:>7.0f} req/s  p50 {p50:6.2f}  p99 {p99:6.2f}", flush=True)
    result.rps.append(rps)
    result.p50.append(p50)
    result.p99.append(p99)
    result.errors.append(errors)


def in_turn(entries: list[tuple[Result, Path, Server]], args, floor: Floor | None = None, before_round=None) -> None:
    """``args.rounds`` rounds of each entry, taken in turn; the order reverses every round so that
    no entry always follows the same one. ``floor``: the first entry is the floor, record it.
    ``before_round``: called before each round (the case's credentials presented again)."""
    for number in range(args.rounds):
        if before_round is not None:
            before_round()
        order = list(enumerate(entries))
        if number % 2:
            order.reverse()
        for index, (result, lines, server) in order:
            run_round(result, lines, server, args)
            if floor is not None and index == 0:
                floor.rounds.append(result.rps[-1])


def report_line(result: Result) -> str:
    return (
        f"{result.name:<52} {result.median_rps:>8.0f} req/s  p50 {result.median_p50:>7.2f} ms  "
        f"p99 {result.median_p99:>7.2f} ms  errors {sum(result.errors)}"
    )
