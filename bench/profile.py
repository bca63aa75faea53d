"""The worker's cost per request, in-process: ``python -m bench.profile [--cases a,b] [--requests N]
[--cprofile CASE] [--instructions]``.

Replays each read case's lines through Django's WSGI handler in this process, on a kept
bench database (DATABASE_URL naming ``bench`` after a run) with the service's settings and
the bench's Redis store, and prints the median ``time.process_time()`` per request, the
worker's CPU only (not PostgreSQL's, Redis's or the kernel's). The credentials are those
the database's fixture names; each line is replayed once untimed first, so each is cached
as in steady use. ``--cprofile CASE`` prints that case's profile, sorted by own time. A case
``limit_<read>`` (``limit_ledger``) replays that read's limit (bench/limits.py) on the same rows,
so a read's gap to its limit is measured in one process.

``--instructions`` counts instead the instructions the worker executes per request, under
valgrind's callgrind: on this kind of virtual machine CPU time drifts by tens of per cent
between minutes, while the count for the same code and data repeats to within 0.1 %, so two
versions of a change can be compared one after the other. Each case runs in a child process
started with instrumentation off; it warms up, switches instrumentation on, and replays its
lines inside one ``functools.reduce`` call, the only place callgrind collects
(``--toggle-collect``). About 15 s a case for 200 requests.
"""

import argparse
import cProfile
import functools
import io
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import time

import django

# The bench's settings: the service's, with the limit views mounted (bench/settings.py).
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
os.environ.setdefault("BENCH_FLOOR", "1")
os.environ.setdefault("RATELIMIT_STORE", "bench.roomy_store.RoomyRedisStore")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")
os.environ.setdefault("DEBUG", "0")
os.environ.setdefault("SECRET_KEY", "bench-profile-only-" + "x" * 40)
os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")
os.environ.setdefault("BASE_URL", "http://127.0.0.1:8101")
django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.db import connection  # noqa: E402

from bench import cases  # noqa: E402
from bench.measure import collected  # noqa: E402
from bench.setup_data import FIXTURE_TABLE  # noqa: E402
from bench.statements import environ  # noqa: E402

User = get_user_model()


def fixture() -> dict:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT body FROM {FIXTURE_TABLE} WHERE name = 'fixture'")
        (body,) = cursor.fetchone()
    return json.loads(body)


def replay(handler, line: str) -> int:
    status = []

    def start_response(value, headers, exc_info=None):
        status.append(int(value.split()[0]))

    response = handler(environ(line), start_response)
    b"".join(response)
    response.close()
    return status[0]


def warm(handler, key: str, sample: list[str]) -> bool:
    # Twice: a user's first lookup only creates its revocation epoch, the second caches the credential.
    for line in [*dict.fromkeys(sample)] * 2:
        status = replay(handler, line)
        if status != 200:
            print(f"{key}: {status} on {line.split(chr(9))[1]}", file=sys.stderr)
            return False
    return True


def instructions(key: str, requests: int) -> int:
    """Instructions per request of case ``key``, counted by callgrind in a child process."""
    command = [
        "valgrind", "--tool=callgrind", "--instr-atstart=no", "--toggle-collect=functools_reduce",
        "--callgrind-out-file=/dev/null", sys.executable, "-m", "bench.profile", "--counted-case", key,
        "--requests", str(requests),
    ]  # fmt: skip
    # A fixed hash seed: dict and set layouts, and so the count, repeat from run to run.
    child = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    count = collected(child.stderr)
    if child.returncode or not count:
        raise RuntimeError(f"{key}: callgrind counted nothing (a stripped Python?)\n{child.stderr[-2000:]}")
    return count // requests


def counted_case(handler, key: str, sample: list[str]) -> int:
    """The child of ``instructions``: warm up, then replay inside the one call callgrind collects."""
    if not warm(handler, key, sample):
        return 1
    subprocess.run(["callgrind_control", "--instr=on", str(os.getpid())], check=True, capture_output=True)
    functools.reduce(lambda _, line: replay(handler, line), sample, 0)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default=",".join(case.key for case in cases.CASES))
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--cprofile", default="")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--instructions", action="store_true", help="count instructions (valgrind) instead of time")
    parser.add_argument("--counted-case", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    handler = WSGIHandler()
    data = fixture()
    lines = cases.case_lines(data)
    heavy = [user.id for user in User.objects.filter(email__in=[f"bench{i}@example.com" for i in data["heavy"]])]
    lines.update({f"limit_{key}": rows for key, rows in cases.limit_lines(data, heavy).items()})

    def sample_of(key: str) -> list[str]:
        return (lines[key] * (args.requests // max(len(lines[key]), 1) + 1))[: args.requests]

    if args.counted_case:
        return counted_case(handler, args.counted_case, sample_of(args.counted_case))
    if args.instructions:
        if not shutil.which("valgrind"):
            print("--instructions needs valgrind (apt-get install valgrind)", file=sys.stderr)
            return 1
        for key in args.cases.split(","):
            print(f"{key:10s} {instructions(key, args.requests):>10,d} instructions a request", flush=True)
        return 0
    for key in args.cases.split(","):
        sample = sample_of(key)
        if not warm(handler, key, sample):
            return 1
        costs = []
        profile = cProfile.Profile() if key == args.cprofile else None
        for line in sample:
            started = time.process_time()
            if profile:
                profile.enable()
            replay(handler, line)
            if profile:
                profile.disable()
            costs.append(time.process_time() - started)
        print(
            f"{key:10s} {statistics.median(costs) * 1e3:6.3f} ms  (p90 {sorted(costs)[len(costs) * 9 // 10] * 1e3:.3f})"
        )
        if profile:
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats(os.environ.get("PROFILE_SORT", "tottime")).print_stats(
                args.top
            )
            print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
