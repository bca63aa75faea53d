"""Quick check: webhook deliveries a second to a local receiver, beside a bare loop of signed POSTs.

``python -m bench.webhooks [N]`` (``make bench`` runs it after the main run): a throwaway
SQLite database, one test-mode endpoint on a receiver on loopback, N events published,
then delivered by the durable work in this process (one thread: what one worker thread
does), and the same N bodies signed and POSTed in a bare loop to the same receiver (the
limit: signing and HTTP alone, on one kept connection, as a worker thread's deliveries keep
theirs). Both figures
come from the same run; compare them, not runs on different machines. With
``--write-docs`` the figures replace the section "Webhook deliveries" of
docs/performance.md (``make bench`` writes the rest of the file first).

Then the worker's deliveries lane as ``run_worker`` runs it (its threads, its bounds per
account and endpoint): several accounts' events alone, then beside one account whose 16
endpoints hang with a backlog of pings queued first (``fairness``): deliveries a second
with one hung tenant against none.
"""

import argparse
import os
import platform
import re
import sys
import tempfile
import time
from pathlib import Path

PERFORMANCE = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
SECTION = "## Webhook deliveries"


def write_docs(
    *,
    count: int,
    delivered_per_second: float,
    bare_per_second: float,
    statements_per_delivery: float,
    connections: int,
    fair: dict | None = None,
) -> None:
    section = (
        f"{SECTION}\n\n"
        f"From `python -m bench.webhooks --write-docs` (bench/webhooks.py), {platform.machine()}, "
        f"{os.cpu_count()} cores: {count} events for one test-mode endpoint on a receiver on loopback, "
        "delivered by the durable work in one process and one thread (what one worker thread does), "
        "beside the same signed bodies POSTed in a bare loop to the same receiver on one kept connection "
        "(the limit: signing and HTTP alone, at the same concurrency, one). SQLite, so the figure is the "
        "worker's own cost and not a database server's; the machine is shared with other work, so only "
        "the ratio, taken within the same minute, says anything.\n\n"
        "| what | per second | statements a delivery |\n|---|---:|---:|\n"
        f"| webhook deliveries, durable work, one thread | {delivered_per_second:.1f} | "
        f"{statements_per_delivery:.1f} |\n"
        f"| bare loop of signed POSTs, same receiver, one kept connection (the reference) | "
        f"{bare_per_second:.1f} | 0 |\n\n"
        f"Deliveries run at {delivered_per_second / bare_per_second:.2f} of the bare loop (target at least "
        f"0.5). The receiver accepted {connections} TCP connections for both loops: a worker thread keeps "
        "its connection to a receiver between deliveries, per checked address (apps/core/egress.py). A "
        "delivery is three statements (its attempt read with the endpoint and the event, whether the "
        "endpoint's owner still stands, one conditional write of the outcome), its row's success mark one "
        "more on SQLite (on PostgreSQL the outcome's write marks it), and a claim of ten rows two, shared "
        "(tests/webhooks/test_delivery_statements.py). What bounds the figure: the database's part of a "
        "delivery, which the bare loop has none of (its claim, its three statements and the success mark, "
        "each of SQLite's writes a commit of its file), and the runner's Python around it; a profile taken "
        "while other work loaded the machine put each statement at 14-23 ms against 15 ms for the signed "
        "POST, and on an idle machine a delivery takes about 7 ms against half a millisecond for the bare "
        "POST. More worker threads (`manage.py run_worker "
        "--threads N`) or processes multiply the rate on PostgreSQL (below).\n"
    )
    if fair:
        section += (
            "\n### One hung tenant against none\n\n"
            f"`python -m bench.webhooks` then runs the worker's deliveries lane as `run_worker` does "
            f"({fair['threads']} threads on {fair['vendor']}, at most 2 attempts of one account and 1 of one "
            f"endpoint at once): {fair['count']} events for {fair['accounts']} accounts, one endpoint each, on a "
            "receiver on loopback, first alone, then behind one more account whose 16 endpoints hang (a receiver "
            f"that accepts and never answers) with {fair['backlog']} pings queued before them. The figure is the "
            "other accounts' deliveries a second; the hung account holds its 2 slots for the whole run.\n\n"
            "| case | deliveries a second | first delivery after |\n|---|---:|---:|\n"
            f"| no hung tenant | {fair['none']:.1f} | {fair['none_first']:.2f} s |\n"
            f"| one hung tenant (16 endpoints, {fair['backlog']} pings queued) | {fair['hung']:.1f} | "
            f"{fair['hung_first']:.2f} s |\n\n"
            f"With one tenant hung the others get {fair['hung'] / fair['none']:.2f} of the rate: the lane's threads "
            "less the hung tenant's 2. Before lanes and per-account slots, one such tenant took every thread and "
            "another account's first delivery waited 202 s.\n"
        )
    text = PERFORMANCE.read_text()
    pattern = re.compile(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", re.S | re.M)
    text = pattern.sub(lambda _: section + "\n", text) if pattern.search(text) else text.rstrip() + "\n\n" + section
    PERFORMANCE.write_text(text.rstrip() + "\n")


def main(count: int = 500, *, docs: bool = False) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="bench-webhooks-"))
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=f"sqlite:///{workdir / 'db.sqlite3'}",
        SECRET_KEY="bench-only-secret-key-not-for-any-deployment-0123456789",
        # The receivers are on loopback, as on a developer's machine.
        WEBHOOK_ALLOW_LOOPBACK="1",
    )
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    import urllib3
    from django.core.management import call_command
    from django.db import connection, transaction

    from apps.apikeys.services import apikey_create
    from apps.jobs.public import run_due
    from apps.webhooks import secrets
    from apps.webhooks.models import WebhookEndpoint
    from apps.webhooks.public import publish
    from apps.webhooks.serializers import event_payload
    from apps.webhooks.signing import body_of, signature_header
    from tests.support.factories import UserFactory
    from tests.support.receivers import Receiver

    call_command("migrate", verbosity=0)
    receiver = Receiver()
    try:
        user = UserFactory()
        key, _secret = apikey_create(user=user, name="bench", scopes=["webhooks:manage", "calls:read"], livemode=False)
        secret = secrets.new_secret()
        WebhookEndpoint.objects.create(
            user=user,
            livemode=False,
            url=receiver.url(),
            enabled_events=["call.ended"],
            api_version="2026-10-01",
            secret_encrypted=secrets.encrypt(secret),
            owner_kind="api_key",
            owner_credential_id=key.id,
        )
        with transaction.atomic():
            events = [
                publish(user, "call.ended", {"id": f"call_{n}", "object": "call"}, livemode=False) for n in range(count)
            ]
        statements = [0]

        def counted(execute, sql, params, many, context):
            statements[0] += 1
            return execute(sql, params, many, context)

        begun = time.perf_counter()
        with connection.execute_wrapper(counted):
            run_due()
        delivered = time.perf_counter() - begun
        assert len(receiver.requests) == count, len(receiver.requests)

        bodies = [(event.id, body_of(event_payload(event))) for event in events]
        pool = urllib3.HTTPConnectionPool("127.0.0.1", receiver.port, retries=False, maxsize=1)
        begun = time.perf_counter()
        for event_id, body in bodies:
            stamp = int(time.time())
            headers = {
                "Content-Type": "application/json",
                "webhook-id": event_id,
                "webhook-timestamp": str(stamp),
                "webhook-signature": signature_header([secret], msg_id=event_id, timestamp=stamp, body=body),
            }
            pool.urlopen("POST", "/hooks", body=body, headers=headers, redirect=False).release_conn()
        bare = time.perf_counter() - begun
        pool.close()
        connections = receiver.connections
    finally:
        receiver.close()
    print(f"webhook deliveries, durable work, one thread: {count / delivered:8.1f} /s  ({count} events)")
    print(f"bare loop of signed POSTs, same receiver:     {count / bare:8.1f} /s  (the limit)")
    print(f"statements per delivery:                      {statements[0] / count:8.1f}")
    print(f"TCP connections to the receiver, both loops:  {connections:8d}")
    fair = fairness(count=min(count, 400))
    print(
        f"deliveries lane, {fair['threads']} threads, no hung tenant:  {fair['none']:8.1f} /s"
        f"  (first after {fair['none_first']:.2f} s)"
    )
    print(
        f"deliveries lane, {fair['threads']} threads, one hung tenant: {fair['hung']:8.1f} /s"
        f"  (first after {fair['hung_first']:.2f} s)"
    )
    if docs:
        write_docs(
            count=count,
            delivered_per_second=count / delivered,
            bare_per_second=count / bare,
            statements_per_delivery=statements[0] / count,
            connections=connections,
            fair=fair,
        )
    return 0


HUNG_ENDPOINTS = 16
HUNG_BACKLOG = 84
QUIET_ACCOUNTS = 8


def fairness(*, count: int) -> dict:
    """Deliveries a second of ``QUIET_ACCOUNTS`` accounts through the worker's deliveries lane, alone
    and beside one account whose receivers hang. Runs after ``main`` set Django up."""
    from django.db import connection

    from apps.jobs import lanes

    threads = lanes.LANES[lanes.DELIVERIES].threads(connection.vendor)
    none, none_first = _lane_run(count=count, threads=threads, hung=False)
    hung, hung_first = _lane_run(count=count, threads=threads, hung=True)
    return {
        "count": count,
        "accounts": QUIET_ACCOUNTS,
        "backlog": HUNG_BACKLOG,
        "threads": threads,
        "vendor": "SQLite" if connection.vendor == "sqlite" else "PostgreSQL",
        "none": none,
        "none_first": none_first,
        "hung": hung,
        "hung_first": hung_first,
    }


def _endpoint(user, url, key):
    from apps.webhooks import secrets
    from apps.webhooks.models import WebhookEndpoint

    return WebhookEndpoint.objects.create(
        user=user,
        livemode=False,
        url=url,
        enabled_events=["call.ended"],
        api_version="2026-10-01",
        secret_encrypted=secrets.encrypt(secrets.new_secret()),
        owner_kind="api_key",
        owner_credential_id=key.id,
    )


def _lane_run(*, count: int, threads: int, hung: bool) -> tuple[float, float]:
    """(deliveries a second, seconds to the first) of the quiet accounts' ``count`` events."""
    import threading

    from django.db import connection, transaction

    from apps.apikeys.services import apikey_create
    from apps.jobs.lanes import DELIVERIES
    from apps.jobs.management.commands.run_worker import Command
    from apps.jobs.models import Job
    from apps.webhooks.public import publish
    from apps.webhooks.services import endpoint_send_test
    from tests.support.factories import UserFactory
    from tests.support.receivers import Receiver, Reply

    Job.objects.filter(status="ready").delete()  # nothing left over from the run before
    quiet, stuck = Receiver(), Receiver()
    stuck.reply = Reply(hang=3600)
    scopes = ["webhooks:manage", "calls:read"]
    try:
        if hung:
            noisy = UserFactory()
            key, _ = apikey_create(user=noisy, name="bench", scopes=scopes, livemode=False)
            endpoints = [_endpoint(noisy, stuck.url(f"/hang/{n}"), key) for n in range(HUNG_ENDPOINTS)]
            with transaction.atomic():
                for n in range(HUNG_BACKLOG):
                    endpoint_send_test(endpoint=endpoints[n % HUNG_ENDPOINTS])
        accounts = []
        for _ in range(QUIET_ACCOUNTS):
            user = UserFactory()
            key, _ = apikey_create(user=user, name="bench", scopes=scopes, livemode=False)
            _endpoint(user, quiet.url(), key)
            accounts.append(user)
        with transaction.atomic():
            for n in range(count):
                publish(
                    accounts[n % QUIET_ACCOUNTS], "call.ended", {"id": f"call_{n}", "object": "call"}, livemode=False
                )

        worker = Command()
        worker.stopping = threading.Event()

        def lane():
            try:
                worker._loop(once=False, poll=0.05, batch=1, lane=DELIVERIES)
            finally:
                connection.close()

        running = [threading.Thread(target=lane, daemon=True) for _ in range(threads)]
        begun = time.monotonic()
        for thread in running:
            thread.start()
        while len(quiet.requests) < count:
            if time.monotonic() - begun > 600:
                raise RuntimeError(f"only {len(quiet.requests)} of {count} deliveries in 10 minutes")
            time.sleep(0.01)
        took = time.monotonic() - begun
        first = quiet.received_at[0] - begun
        worker.stopping.set()
    finally:
        quiet.close()
        stuck.close()  # the hung attempts get their answer and the threads stop
    for thread in running:
        thread.join(30)
    return count / took, first


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("count", nargs="?", type=int, default=500)
    parser.add_argument("--write-docs", action="store_true")
    arguments = parser.parse_args()
    sys.exit(main(arguments.count, docs=arguments.write_docs))
