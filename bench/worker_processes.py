"""Webhook deliveries a second with one and with two ``run_worker`` processes on PostgreSQL.

``python -m bench.worker_processes [N]`` (``make bench`` runs it): a fresh PostgreSQL database
(``BENCH_DATABASE_URL``), 40 accounts with one test-mode endpoint each on a receiver on
loopback (so the deliveries lane's bounds, 2 attempts of one account and 1 of one endpoint at
once, never hold a thread back), and the worker as a deployment runs it: ``manage.py
run_worker`` processes with their production threads. The workers start first and poll; each
round commits N events at once, and the figure is N over the time from that commit to the
last attempt's success mark (the job rows' own ``finished_at``). Rounds alternate one process
and two, so each ratio compares work done within the same minute. With ``--write-docs`` the
figures replace the section "Worker processes" of docs/performance.md.
"""

import argparse
import os
import platform
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import docs

ROUNDS = 3
ACCOUNTS = 40
ROOT = Path(__file__).resolve().parent.parent


def _workers(count: int, *, poll: float | None = 0.05) -> list[subprocess.Popen]:
    """``count`` worker processes, polling every ``poll`` seconds (None: the worker's default)."""
    polling = [] if poll is None else ["--poll", str(poll)]
    return [
        subprocess.Popen(
            [sys.executable, "manage.py", "run_worker", *polling],
            cwd=ROOT,
            env=os.environ.copy(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(count)
    ]


def _stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _round(accounts, receiver, count: int, *, label: str) -> float:
    from django.db import transaction
    from django.db.models import Max

    from apps.jobs.models import Job
    from apps.webhooks.public import publish

    before = len(receiver.requests)
    with transaction.atomic():
        for n in range(count):
            publish(accounts[n % len(accounts)], "call.ended", {"id": f"{label}_{n}", "object": "call"}, livemode=False)
    committed = time.time()
    deadline = time.monotonic() + 600
    while len(receiver.requests) < before + count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {len(receiver.requests) - before} of {count} deliveries in 10 minutes")
        time.sleep(0.02)
    while Job.objects.filter(kind="webhooks.deliver", status="ready").exists():
        time.sleep(0.02)  # the last success marks
    last = Job.objects.filter(kind="webhooks.deliver").aggregate(last=Max("finished_at"))["last"]
    return count / (last.timestamp() - committed)


def main(count: int = 600, *, docs_wanted: bool = False) -> int:
    os.environ.setdefault("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench_deliveries")
    os.environ.pop("REDIS_URL", None)  # the workers use no budget; the web side is not measured here
    from bench import inprocess

    inprocess.configure("deliveries", WEBHOOK_ALLOW_LOOPBACK="1")
    os.environ["RATELIMIT_ENABLED"] = "0"
    from django.db import connection

    from apps.apikeys.services import apikey_create
    from apps.jobs import lanes
    from apps.jobs.public import run_due
    from bench.webhooks import _endpoint
    from tests.support.factories import UserFactory
    from tests.support.receivers import Receiver

    assert connection.vendor == "postgresql", "worker processes are measured on PostgreSQL"
    receiver = Receiver()
    accounts = []
    for _ in range(ACCOUNTS):
        user = UserFactory()
        key, _ = apikey_create(user=user, name="bench", scopes=["webhooks:manage", "calls:read"], livemode=False)
        _endpoint(user, receiver.url(), key)
        accounts.append(user)
    connection.close()  # the workers' connections, not this one's, are measured
    figures: dict[int, list[float]] = {1: [], 2: []}
    try:
        for round_number in range(ROUNDS):
            for processes in (1, 2) if round_number % 2 == 0 else (2, 1):
                running = _workers(processes)
                try:
                    _round(accounts, receiver, 40, label=f"warm{round_number}_{processes}")  # started, connected
                    figures[processes].append(_round(accounts, receiver, count, label=f"r{round_number}_{processes}"))
                finally:
                    _stop(running)
                print(f"round {round_number + 1}, {processes} process(es): {figures[processes][-1]:8.1f} /s")
        run_due()  # nothing left behind
    finally:
        receiver.close()
    one, two = statistics.median(figures[1]), statistics.median(figures[2])
    threads = lanes.LANES[lanes.DELIVERIES].threads("postgresql")
    print(f"one run_worker process:  {one:8.1f} deliveries /s")
    print(f"two run_worker processes: {two:8.1f} deliveries /s ({two / one:.2f}x)")
    if docs_wanted:
        docs.replace_section(
            "Worker processes",
            "## Worker processes\n\n"
            f"From `python -m bench.worker_processes --write-docs` (bench/worker_processes.py), "
            f"{platform.machine()}, {os.cpu_count()} cores: {ACCOUNTS} accounts with one "
            "test-mode endpoint each on one receiver on loopback, PostgreSQL, `manage.py run_worker` processes "
            f"with their production threads ({threads} on the deliveries lane each). Each round commits {count} "
            "events at once; the figure is the events over the time from the commit to the last attempt's "
            f"success mark (the job rows' `finished_at`), median of {ROUNDS} rounds, one process and two in "
            "turn.\n\n"
            "| worker processes | deliveries a second |\n|---|---:|\n"
            f"| one | {one:.1f} |\n| two | {two:.1f} |\n\n"
            f"Two processes deliver {two / one:.2f}x what one does (target at least 1.5x). What bounds it: the "
            "machine's two cores, which the worker processes share with PostgreSQL and the receiver (a "
            "Python server in the bench's process, a thread per connection); each delivery's database work "
            "is its claim (the lane's turn, then the lease) and three statements, the last one marking its row "
            "done. With two cores for everything, a second process adds only what the first left idle.\n",
        )
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("count", nargs="?", type=int, default=600)
    parser.add_argument("--write-docs", action="store_true")
    arguments = parser.parse_args()
    sys.exit(main(arguments.count, docs_wanted=arguments.write_docs))
