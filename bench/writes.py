"""Writes under load through gunicorn: a quote, and a quote with its placement and its end, beside the rate read.

``python -m bench.writes [--accounts N] [--rounds R] [--duration S] [--write-docs]`` (``make bench``
runs it on its own database, ``BENCH_DATABASE_URL``, and Redis, ``REDIS_URL``). Many accounts, each
with its API key, a default caller ID and credit; gunicorn with production's configuration file
and worker count (gunicorn.conf.py), DEBUG off, the limiter on with every budget a thousand times
larger (bench/roomy_store.py) and the calls' caps raised, so nothing is refused. wrk
(bench/writes.lua) gives each of its threads one connection and its own accounts, so an account
has one live callback at most: its next quote waits for its call's end. The three cases alternate
round by round (the order reversed every other round), so each ratio divides figures taken within
the same minute; medians of the rounds.

Statements a request are counted in-process on the same database (Django's execute wrapper:
BEGIN and COMMIT are not statements it sees), the webhook events' own apart (the webhooks app's,
bounded by its tests). What bounds each figure is an in-process profile (cProfile) of the same
requests: the share of the time spent waiting on PostgreSQL (each statement's round trip and its
work on the server, a write's commit included), on Redis, and in the worker's own Python.
"""

import argparse
import cProfile
import os
import platform
import pstats
import secrets
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench import docs, inprocess, measure

PORT = 8121
THREADS = 8
CASES = ("rate", "quote", "flow")
LABELS = {
    "rate": "GET /v1/rates?to=<number> (the reference)",
    "quote": "POST /v1/quotes",
    "flow": "POST /v1/quotes, POST /v1/calls, POST /v1/calls/{id}/end (one placement)",
}
CAPS = {
    "CALL_SPEND_LIMIT_DAILY": "1000000.00",
    "CALL_SPEND_LIMIT_CREDENTIAL_DAILY": "1000000.00",
    "CALLS_PER_NUMBER_HOURLY": "1000000",
    "CALL_DESTINATIONS_DAILY": "1000000",
}
TARGETS = {"quote": 0.5, "flow": 0.2}
MAX_FLOW_STATEMENTS = 8


def _end_live_calls(server, keys: dict[str, str], connections: int) -> None:
    """End, through the API, each call a round left live (wrk stops mid-placement): else the account's
    next placement is refused as a call in progress."""
    from apps.calls.models import LIVE_STATUSES, Call

    time.sleep(1)  # the requests wrk left in flight when it stopped finish first
    live = Call.objects.filter(status__in=sorted(LIVE_STATUSES)).exclude(quote_id="").values_list("id", "user_id")
    ends = [f"POST\t/v1/calls/{call}/end\tAuthorization: Bearer {keys[user]}\t" for call, user in live]
    if ends:
        measure.send_all(ends, server, connections=connections)


def _accounts(count: int) -> dict[str, str]:
    from tests.calls.callbacks import ready
    from tests.support.factories import UserFactory, make_api_key

    keys = {}  # user id -> the secret of its key
    for index in range(count):
        user = UserFactory()
        ready(user, credit=10**9, rates_too=index == 0)
        keys[user.pk] = make_api_key(user, scopes=["calls:place", "calls:read", "rates:read"])[1]
    return keys


def _cases(secret: str):
    from django.test import Client

    from tests.calls.callbacks import CALLEE

    client, auth = Client(), {"HTTP_AUTHORIZATION": f"Bearer {secret}"}

    def rate():
        assert client.get(f"/v1/rates?to=%2B{CALLEE[1:]}", **auth).status_code == 200

    def quote():
        made = client.post("/v1/quotes", {"to": CALLEE}, content_type="application/json", **auth)
        assert made.status_code == 201, made.content
        return made.json()["id"]

    def flow():
        key = {"HTTP_IDEMPOTENCY_KEY": str(uuid.uuid4())}
        placed = client.post("/v1/calls", {"quote": quote()}, content_type="application/json", **key, **auth)
        assert placed.status_code == 201, placed.content
        ended = client.post(f"/v1/calls/{placed.json()['id']}/end", content_type="application/json", **auth)
        assert ended.status_code == 200, ended.content

    return {"rate": rate, "quote": quote, "flow": flow}


def statements_of(cases: dict) -> dict[str, tuple[float, float]]:
    """Each case's statements a request (a flow's three together), and how many of them are the webhook events'."""
    from django.db import connection

    counted = {}
    for name, case in cases.items():
        for _ in range(5):
            case()  # warm: compiled statements, prepared plans, the credential cache
        sent = []

        def record(execute, sql, params, many, context, sent=sent):
            sent.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(record):
            for _ in range(20):
                case()
        webhooks = [sql for sql in sent if '"webhooks_' in sql.split(" WHERE ")[0]]
        counted[name] = (len(sent) / 20, len(webhooks) / 20)
    return counted


def profile_of(cases: dict, requests: int) -> dict[str, dict[str, float]]:
    """Per case: milliseconds a request in-process and the shares waiting on PostgreSQL, on Redis, in Python."""
    shares = {}
    for name, case in cases.items():
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(requests):
            case()
        profiler.disable()
        stats = pstats.Stats(profiler)
        total = stats.total_tt
        database = _sum(stats, "psycopg/cursor.py", "execute")
        redis = _sum(stats, "redis/connection.py", "send_packed_command") + _sum(
            stats, "redis/connection.py", "read_response"
        )
        shares[name] = {
            "ms": 1000 * total / requests,
            "database": database / total,
            "redis": redis / total,
            "python": max(0.0, 1 - (database + redis) / total),
        }
    return shares


def _sum(stats: pstats.Stats, suffix: str, function: str) -> float:
    # Cumulative time of the outermost calls only: these functions do not call themselves.
    return sum(row[3] for (path, _line, name), row in stats.stats.items() if name == function and path.endswith(suffix))


def _server_env() -> dict:
    return {
        **os.environ,
        "DEBUG": "0",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "LOG_LEVEL": "WARNING",
    }


def _wrk(mode: str, lines: Path, args) -> tuple[float, float, int]:
    env = {
        **os.environ,
        "BENCH_MODE": mode,
        "BENCH_LINES": str(lines),
        "BENCH_THREADS": str(args.threads),
        "BENCH_ROUND": secrets.token_hex(6),
    }
    cmd = [
        "wrk", f"-t{args.threads}", f"-c{args.threads}", f"-d{args.duration}s", "--latency",
        "-s", str(measure.ROOT / "bench" / "writes.lua"), f"http://127.0.0.1:{PORT}",
    ]  # fmt: skip
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    rps, _p50, p99, errors, _total = measure.parse_wrk(out)
    if errors:
        print(f"{mode}: {errors} failed requests\n{out}", file=sys.stderr)
    return rps, p99, errors


def run(args) -> int:
    database = inprocess.configure("writes", **CAPS)
    if not database.startswith("postgres"):
        print("bench.writes runs on PostgreSQL: set BENCH_DATABASE_URL (and REDIS_URL)", file=sys.stderr)
        return 2
    from tests.calls.callbacks import CALLEE

    by_user = _accounts(args.accounts + 1)
    keys = list(by_user.values())
    cases = _cases(keys.pop())  # one account of its own for the counts and the profile
    statements = statements_of(cases)
    profile = profile_of(cases, args.profile_requests)
    lines = Path(tempfile.mkdtemp(prefix="bench-writes-")) / "accounts.tsv"
    lines.write_text("".join(f"{key}\t{CALLEE}\n" for key in keys))
    me = [f"GET\t/v1/me\tAuthorization: Bearer {key}\t" for key in keys]
    server = measure.Server("writes", PORT)
    gunicorn = [
        sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{PORT}", "--log-level", "warning",
    ]  # fmt: skip
    figures = {name: {"rps": [], "p99": [], "errors": 0} for name in CASES}
    with measure.process(server, gunicorn, _server_env(), "/v1/me"):
        for _ in range(2):  # a key's first lookup creates its user's epoch, the second caches it
            measure.send_all(me, server, connections=args.threads)
        for number in range(args.rounds):
            measure.send_all(me, server, connections=args.threads)  # cached afresh: entries live 60 s
            for name in CASES if number % 2 == 0 else reversed(CASES):
                rps, p99, errors = _wrk(name, lines, args)
                _end_live_calls(server, by_user, args.threads)
                figures[name]["rps"].append(rps)
                figures[name]["p99"].append(p99)
                figures[name]["errors"] += errors
                print(f"  round {number + 1}: {name:6} {rps:8.1f} req/s  p99 {p99:7.2f} ms", flush=True)
    rows = _rows(figures, statements, profile)
    for row in rows:
        print(row)
    if args.write_docs:
        _write_docs(args, rows, figures, statements)
    return 0


def _median(values: list[float]) -> float:
    import statistics

    return statistics.median(values) if values else 0.0


def _per_second(name: str, figures: dict) -> float:
    # A placement is three requests: its figure is placements a second.
    return _median(figures[name]["rps"]) / (3 if name == "flow" else 1)


def _ratio(name: str, figures: dict) -> float:
    """The median over the rounds of the case's figure over the rate read's of the same round: the
    machine drifts from one minute to the next, a round's cases are seconds apart."""
    per_round = [
        case / (3 if name == "flow" else 1) / rate
        for case, rate in zip(figures[name]["rps"], figures["rate"]["rps"], strict=True)
        if rate
    ]
    return _median(per_round)


def _rows(figures: dict, statements: dict, profile: dict) -> list[str]:
    rows = []
    for name in CASES:
        per_second = _per_second(name, figures)
        total, webhooks = statements[name]
        shares = profile[name]
        rows.append(
            f"| {LABELS[name]} | {per_second:.1f} | {_ratio(name, figures):.2f} | {_median(figures[name]['p99']):.1f} "
            f"| {total - webhooks:.1f} (+{webhooks:.1f}) | {shares['ms']:.1f} | {shares['database']:.0%} "
            f"| {shares['redis']:.0%} | {shares['python']:.0%} | {figures[name]['errors']} |"
        )
    return rows


def _write_docs(args, rows: list[str], figures: dict, statements: dict) -> None:
    met = ", ".join(
        f"{'a quote' if name == 'quote' else 'a placement'} {_ratio(name, figures):.2f} (target at least {target})"
        for name, target in TARGETS.items()
    )
    flow_total, flow_webhooks = statements["flow"]
    section = f"""## Writes under load

From `python -m bench.writes --write-docs` (bench/writes.py), {platform.machine()}, {os.cpu_count()} cores,
PostgreSQL and Redis local: gunicorn with production's configuration and worker count, DEBUG off,
{args.accounts} accounts each with its own API key and at most one live callback (wrk {args.threads}
threads, one connection each, each thread its own accounts: an account's next quote waits for its
call's end), the simulator as the carrier, the caps raised and the limiter's budgets a thousand times
larger, so nothing is refused. The three cases alternate in {args.rounds} rounds of {args.duration} s
(the order reversed every other round); medians, each ratio the median of the rounds' own (a
round's cases seconds apart). A placement is the quote, the placement and the end: its figure is
placements a second, its p99 that of its requests. Statements a request (a
placement's three together), BEGIN and COMMIT not counted, in brackets the webhook events' (the
event's row and the read of the endpoints that hear of it, the webhooks app's own). The profile
(cProfile, in-process, {args.profile_requests} of each on the same database): milliseconds a
request and where they go.

| case | per second | / the rate read | p99 ms | statements | ms in-process | PostgreSQL | Redis | Python | failed |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(rows)}

Against the targets: {met}; a placement's statements {flow_total - flow_webhooks:.0f} of at most
{MAX_FLOW_STATEMENTS}, plus {flow_webhooks:.0f} of the webhook events'.

{WHAT_BOUNDS}
"""
    docs.replace_section("Writes under load", section)


WHAT_BOUNDS = (
    "What bounds each figure: the rate read is one compiled statement, prepared on the server, and "
    "the worker's Python (credential, limiter, serializer). A quote reads the rate, the caller IDs, the "
    "balance, the holds and the caps' usage in one statement compiled once per process "
    "(apps/calls/usage.py) and writes its row: two round trips, the second a commit PostgreSQL flushes "
    "to its log before it answers; its Python is the rate read's plus the checks and its row's INSERT. "
    "A placement adds the idempotency key's claim (its own committed transaction, so that two requests "
    "with one key never both run), the balance row's lock (every placement of one account queues on "
    "it, so the caps and the balance are read after the one before wrote), the quote read again with "
    "the usage after that lock, the writes in one statement (with the simulator's first event and the "
    "key's stored answer), and the webhook events; the end reads the call under its row lock, applies the "
    "carrier's due events and writes the end in one statement. Four commits a placement (the quote's, the "
    "claim's, the placement's, the end's), each flushed "
    "to the log, on two cores shared with wrk, Redis and PostgreSQL."
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--accounts", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--threads", type=int, default=THREADS)
    parser.add_argument("--profile-requests", type=int, default=100)
    parser.add_argument("--write-docs", action="store_true")
    sys.exit(run(parser.parse_args()))


if __name__ == "__main__":
    main()
