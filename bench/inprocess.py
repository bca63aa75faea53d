"""In-process quick benches beside a reference of the same run (bench/callbacks.py, bench/messages.py).

One process and one thread sends each case's requests through Django's whole request cycle
(middleware, the limiter's round trip, the view, the database), to PostgreSQL and Redis when
``BENCH_DATABASE_URL`` and ``REDIS_URL`` are set (``make bench`` sets them), else to a throwaway
SQLite file with the limiter off. The cases alternate in rounds, so each ratio compares work
done within the same seconds; statements are counted per request (BEGIN and COMMIT are not).
"""

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench import docs

ROUNDS = 3


def configure(prefix: str, **settings: str) -> str:
    """The environment of the run, before Django starts; returns the database URL."""
    workdir = Path(tempfile.mkdtemp(prefix=f"bench-{prefix}-"))
    database = os.environ.get("BENCH_DATABASE_URL") or f"sqlite:///{workdir / 'db.sqlite3'}"
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=database,
        SECRET_KEY="bench-only-secret-key-not-for-any-deployment-0123456789",
        ALLOWED_HOSTS="testserver",
        **settings,
    )
    if os.environ.get("REDIS_URL"):
        # Every budget a thousand times larger: the limiter's whole cost, no refusal measured.
        os.environ["RATELIMIT_STORE"] = "bench.roomy_store.RoomyRedisStore"
        os.environ["RATELIMIT_KEY_PREFIX"] = f"bench-{prefix}-{os.getpid()}"
    else:
        os.environ["RATELIMIT_ENABLED"] = "0"
    fresh_database(database)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
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


def measure(cases: dict[str, Callable[[], None]], count: int) -> tuple[dict[str, float], dict[str, float]]:
    """Each case's median requests a second over the rounds, and its statements per request."""
    from django.db import connection

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
    return {name: statistics.median(values) for name, values in per_second.items()}, statements


def backend(database: str) -> str:
    return "PostgreSQL and Redis" if database.startswith("postgres") else "SQLite, limiter off"


def print_rows(medians: dict, statements: dict, reference: str) -> None:
    for name in medians:
        print(
            f"{name:16} {medians[name]:8.1f} /s  {medians[name] / medians[reference]:5.2f} of {reference}  "
            f"{statements[name]:4.1f} statements"
        )


def write_section(
    *,
    title: str,
    script: str,
    database: str,
    count: int,
    labels: dict,
    medians: dict,
    statements: dict,
    reference: str,
    words: str,
    after: str,
) -> None:
    """Replace (or add) the section ``title`` of docs/performance.md with this run's figures."""
    rows = "".join(
        f"| {labels[name]} | {medians[name]:.1f} | {medians[name] / medians[reference]:.2f} "
        f"| {statements[name]:.1f} |\n"
        for name in labels
    )
    section = (
        f"## {title}\n\n"
        f"From `python -m {script} --write-docs`, {platform.machine()}, {os.cpu_count()} cores, "
        f"{backend(database)}: one process and one thread, each case {count} requests a round through "
        f"Django's whole request cycle, {ROUNDS} rounds taken in turn, medians; statements per request, "
        f"BEGIN and COMMIT not counted. {words}\n\n"
        f"| case | per second | / {labels[reference].split(' (')[0]} | statements |\n|---|---:|---:|---:|\n"
        f"{rows}\n{after}\n"
    )
    docs.replace_section(title, section)


def command_line(main: Callable[..., int], description: str) -> None:
    """``python -m bench.<name> [N] [--write-docs]``: run ``main`` and exit with its status."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("count", nargs="?", type=int, default=200)
    parser.add_argument("--write-docs", action="store_true")
    arguments = parser.parse_args()
    sys.exit(main(arguments.count, docs=arguments.write_docs))
