"""How late a simulated call's events are applied: due to applied, at 50 live calls, on PostgreSQL.

``python -m bench.event_latency [CALLS]`` (``make bench`` runs it): a fresh PostgreSQL database
(``BENCH_DATABASE_URL``), CALLS accounts each placing one live callback through ``POST
/v1/quotes`` and ``POST /v1/calls`` with the simulator as the carrier (answered, talked 30 s,
hung up: each call's script is a few events due seconds apart), and one ``manage.py
run_worker`` process as a deployment runs it (its production threads, the default poll, woken by
PostgreSQL's notifications) applying them. An event's latency is its
job row's ``finished_at`` less its ``run_at`` (when it fell due): the rows' own timestamps,
written by the worker. With ``--write-docs`` the figures replace the section "Simulated call
events" of docs/performance.md.
"""

import argparse
import os
import platform
import statistics
import sys
import time
import uuid

from bench import docs


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main(calls: int = 50, *, docs_wanted: bool = False) -> int:
    os.environ.setdefault("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench_events")
    os.environ.pop("REDIS_URL", None)
    from bench import inprocess

    inprocess.configure(
        "events",
        CALL_SPEND_LIMIT_DAILY="1000000.00",
        CALL_SPEND_LIMIT_CREDENTIAL_DAILY="1000000.00",
        CALLS_PER_NUMBER_HOURLY="1000000",
        CALL_DESTINATIONS_DAILY="1000000",
    )
    from django.db import connection
    from django.test import Client

    from apps.jobs import lanes
    from apps.jobs.models import Job
    from apps.telephony.carriers.simulated import EVENT_JOB
    from bench.worker_processes import _stop, _workers
    from tests.calls.callbacks import CALLEE, ready
    from tests.support.factories import UserFactory, make_api_key

    assert connection.vendor == "postgresql", "the worker's latency is measured on PostgreSQL"
    client = Client()
    secrets = []
    for n in range(calls):
        user = UserFactory()
        ready(user, credit=10**9, rates_too=n == 0)
        secrets.append(make_api_key(user, scopes=["calls:place", "calls:read", "rates:read"])[1])
    worker = _workers(1, poll=None)
    try:
        # Started and polling (it writes the schedules' rows first): its start-up is no event's latency.
        started = time.monotonic()
        while not Job.objects.exists():
            if time.monotonic() - started > 300:
                raise RuntimeError("the worker did not start in 5 minutes")
            time.sleep(0.2)
        time.sleep(1)
        placed = time.monotonic()
        for secret in secrets:
            auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
            quote = client.post("/v1/quotes", {"to": CALLEE}, content_type="application/json", **auth)
            assert quote.status_code == 201, quote.content
            call = client.post(
                "/v1/calls",
                {"quote": quote.json()["id"]},
                content_type="application/json",
                HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
                **auth,
            )
            assert call.status_code == 201, call.content
        placing = time.monotonic() - placed
        while Job.objects.filter(kind=EVENT_JOB, status="ready").exists():
            if time.monotonic() - placed > 600:
                raise RuntimeError("the simulated calls' events were not all applied in 10 minutes")
            time.sleep(0.2)
    finally:
        _stop(worker)
    rows = list(Job.objects.filter(kind=EVENT_JOB, status="successful").values_list("run_at", "finished_at"))
    late = [(finished - due).total_seconds() * 1000 for due, finished in rows]
    p50, p99, worst = statistics.median(late), percentile(late, 0.99), max(late)
    threads = lanes.LANES[lanes.CARRIER].threads("postgresql")
    print(f"{len(late)} events of {calls} live calls (placed in {placing:.1f} s)")
    print(f"due to applied: p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {worst:.0f} ms")
    if docs_wanted:
        docs.replace_section(
            "Simulated call events",
            "## Simulated call events\n\n"
            f"From `python -m bench.event_latency --write-docs` (bench/event_latency.py), {platform.machine()}, "
            f"{os.cpu_count()} cores shared with other work: {calls} accounts each place one live callback "
            "(`POST /v1/quotes`, `POST /v1/calls`, the simulator as the carrier: answered, 30 s of talk, hung up), "
            f"all {calls} live at once, and one `manage.py run_worker` process ({threads} threads on the carrier "
            "lane, the default poll of 1 s, PostgreSQL) applies their events. An event's latency is its job row's "
            "`finished_at` less its "
            "`run_at`, the rows' own timestamps.\n\n"
            "| events | p50 | p99 | max |\n|---:|---:|---:|---:|\n"
            f"| {len(late)} | {p50:.0f} ms | {p99:.0f} ms | {worst:.0f} ms |\n\n"
            "Target: p99 under 200 ms at 50 live calls. What bounds it: not the poll. A lane with nothing due "
            "waits until its next row's `run_at` (one read of the ready rows' index), and a row enqueued meanwhile "
            "wakes it through PostgreSQL's `NOTIFY` at commit (apps/jobs/wakeup.py), to run it or to wait for it "
            "if it falls due sooner; what remains is the events that fall due together (the calls were placed "
            f"within {placing:.1f} s, so their scripts' steps come due in bursts shared by the lane's threads), "
            "each event's apply one short transaction.\n",
        )
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("calls", nargs="?", type=int, default=50)
    parser.add_argument("--write-docs", action="store_true")
    arguments = parser.parse_args()
    sys.exit(main(arguments.calls, docs_wanted=arguments.write_docs))
