"""Quick check: a quote, and placing then ending a callback, beside the rate lookup, in one run.

``python -m bench.callbacks [N]`` (``make bench`` runs it after the main run): one process and
one thread sends N requests of each case through Django's whole request cycle (middleware, the
limiter's round trip, the view, the database) to PostgreSQL and Redis when
``BENCH_DATABASE_URL`` and ``REDIS_URL`` are set (make bench sets them), else to a throwaway
SQLite file with the in-process limiter. The three cases alternate in rounds, so that each ratio
compares work done within the same seconds. A placement is the place-then-end pair (one live
callback per account: the next placement waits for the end), with the simulator as the carrier;
the budgets are the bench's roomy ones and the caps are raised, so nothing is refused. With
``--write-docs`` the figures replace the section "Callback calls" of docs/performance.md.
"""

import argparse
import os
import platform
import re
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

PERFORMANCE = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
SECTION = "## Callback calls"
ROUNDS = 3


def configure() -> str:
    workdir = Path(tempfile.mkdtemp(prefix="bench-callbacks-"))
    database = os.environ.get("BENCH_DATABASE_URL") or f"sqlite:///{workdir / 'db.sqlite3'}"
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=database,
        SECRET_KEY="bench-only-secret-key-not-for-any-deployment-0123456789",
        ALLOWED_HOSTS="testserver",
        CALL_SPEND_LIMIT_DAILY="1000000.00",
        CALL_SPEND_LIMIT_CREDENTIAL_DAILY="1000000.00",
        CALLS_PER_NUMBER_HOURLY="1000000",
        CALL_DESTINATIONS_DAILY="1000000",
    )
    if os.environ.get("REDIS_URL"):
        os.environ["RATELIMIT_STORE"] = "bench.roomy_store.RoomyRedisStore"
        os.environ["RATELIMIT_KEY_PREFIX"] = f"bench-callbacks-{os.getpid()}"
    return database


def fresh_database(url: str) -> None:
    if not url.startswith("postgres"):
        return
    import psycopg
    from psycopg import sql

    name = url.rsplit("/", 1)[-1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def main(count: int = 200, *, docs: bool = False) -> int:
    database = configure()
    fresh_database(database)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from tests.calls.callbacks import CALLEE, ready
    from tests.support.credentials import cached_key_secret
    from tests.support.factories import UserFactory

    call_command("migrate", verbosity=0)
    user = UserFactory()
    ready(user, credit=10**9)
    secret = cached_key_secret(user, ["calls:place", "calls:read", "rates:read"])
    client = Client()
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}

    def rate():
        assert client.get(f"/v1/rates?to=%2B{CALLEE[1:]}", **auth).status_code == 200

    def quote():
        assert client.post("/v1/quotes", {"to": CALLEE}, content_type="application/json", **auth).status_code == 201

    def place_then_end():
        made = client.post("/v1/quotes", {"to": CALLEE}, content_type="application/json", **auth).json()
        placed = client.post(
            "/v1/calls",
            {"quote": made["id"]},
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
            **auth,
        )
        assert placed.status_code == 201, placed.content
        ended = client.post(f"/v1/calls/{placed.json()['id']}/end", content_type="application/json", **auth)
        assert ended.status_code == 200, ended.content

    cases = {"rate": rate, "quote": quote, "place_then_end": place_then_end}
    for case in cases.values():  # warm: compiled statements, prepared plans, the credential cache
        for _ in range(10):
            case()
    per_second = {name: [] for name in cases}
    statements = {}
    for _ in range(ROUNDS):
        for name, case in cases.items():
            sent = [0]

            def counted(execute, sql, params, many, context, sent=sent):
                sent[0] += 1
                return execute(sql, params, many, context)

            with connection.execute_wrapper(counted):
                begun = time.perf_counter()
                for _ in range(count):
                    case()
                elapsed = time.perf_counter() - begun
            per_second[name].append(count / elapsed)
            statements[name] = sent[0] / count
    medians = {name: statistics.median(values) for name, values in per_second.items()}
    backend = "PostgreSQL and Redis" if database.startswith("postgres") else "SQLite, in-process limiter"
    for name in cases:
        print(
            f"{name:16} {medians[name]:8.1f} /s  {medians[name] / medians['rate']:5.2f} of the rate lookup  "
            f"{statements[name]:4.1f} statements"
        )
    if docs:
        write_docs(count=count, medians=medians, statements=statements, backend=backend)
    return 0


LABELS = {
    "rate": "GET /v1/rates?to=<number> (the reference)",
    "quote": "POST /v1/quotes",
    "place_then_end": "POST /v1/quotes, POST /v1/calls, POST /v1/calls/{id}/end (one placement)",
}


def write_docs(*, count: int, medians: dict, statements: dict, backend: str) -> None:
    rows = "".join(
        f"| {LABELS[name]} | {medians[name]:.1f} | {medians[name] / medians['rate']:.2f} | {statements[name]:.1f} |\n"
        for name in LABELS
    )
    section = (
        f"{SECTION}\n\n"
        f"From `python -m bench.callbacks --write-docs` (bench/callbacks.py), {platform.machine()}, "
        f"{os.cpu_count()} cores, {backend}: one process and one thread, each case {count} requests a round "
        f"through Django's whole request cycle, {ROUNDS} rounds taken in turn, medians. A placement is "
        "the quote, the placement and the end (one live callback per account), the simulator as the "
        "carrier; budgets roomy and caps raised, so nothing is refused. Statements are per case, "
        "BEGIN and COMMIT not counted; the writes of a placement and of an end are one statement "
        "each on PostgreSQL.\n\n"
        "| case | per second | / rate lookup | statements |\n|---|---:|---:|---:|\n"
        f"{rows}\n"
        "What bounds a quote, in-process (cProfile, 200 quotes): its one statement of the caps' usage "
        "(the day's spend, the hour's calls to the number, the day's destinations and the balance less "
        "its holds, as annotations) is built and compiled by the ORM on every request, about 60 % of a "
        "quote's time; the rate lookup beside it is compiled once per process (apps/core/sql.py). "
        "Compiling the usage statement once the same way is the next step, not yet done. A placement "
        "adds the placement's and the end's writes (one statement each on PostgreSQL) and their "
        "services' checks.\n"
    )
    text = PERFORMANCE.read_text()
    pattern = re.compile(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", re.S | re.M)
    text = pattern.sub(lambda _: section + "\n", text) if pattern.search(text) else text.rstrip() + "\n\n" + section
    PERFORMANCE.write_text(text.rstrip() + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("count", nargs="?", type=int, default=200)
    parser.add_argument("--write-docs", action="store_true")
    arguments = parser.parse_args()
    sys.exit(main(arguments.count, docs=arguments.write_docs))
