"""The worker's CPU per request, in-process: ``python -m bench.profile [--cases a,b] [--requests N] [--cprofile CASE]``.

Replays each read case's lines through Django's WSGI handler in this process, on a kept
bench database (DATABASE_URL naming ``bench`` after a run) with the service's settings and
the bench's Redis store, and prints the median ``time.process_time()`` per request, the
worker's CPU only (not PostgreSQL's, Redis's or the kernel's). The credentials are those
the database's fixture names; each line is replayed once untimed first, so each is cached
as in steady use. ``--cprofile CASE`` prints that case's profile, sorted by own time.
"""

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("RATELIMIT_STORE", "bench.roomy_store.RoomyRedisStore")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")
os.environ.setdefault("DEBUG", "0")
os.environ.setdefault("SECRET_KEY", "bench-profile-only-" + "x" * 40)
os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")
os.environ.setdefault("BASE_URL", "http://127.0.0.1:8101")
django.setup()

from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.db import connection  # noqa: E402

from bench import cases  # noqa: E402
from bench.setup_data import FIXTURE_TABLE  # noqa: E402
from bench.statements import environ  # noqa: E402


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


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default=",".join(case.key for case in cases.CASES))
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--cprofile", default="")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    handler = WSGIHandler()
    lines = cases.case_lines(fixture())
    for key in args.cases.split(","):
        sample = (lines[key] * (args.requests // max(len(lines[key]), 1) + 1))[: args.requests]
        # Twice: a user's first lookup only creates its revocation epoch, the second caches the credential.
        for line in [*dict.fromkeys(sample)] * 2:
            status = replay(handler, line)
            if status != 200:
                print(f"{key}: {status} on {line.split(chr(9))[1]}", file=sys.stderr)
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
