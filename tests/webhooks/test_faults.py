"""Deliveries under faults, with real worker processes on PostgreSQL and real receivers on loopback.

- a worker killed with SIGKILL mid-delivery loses no event: the attempt's row comes due
  again when its lease runs out and the next worker sends it (same webhook-id);
- a receiver that hangs holds only its own attempt: another endpoint's event arrives
  within a second, while the first is still held;
- 1,000 events for one endpoint arrive exactly once each at a receiver that dedupes on
  webhook-id, the worker killed and restarted midway.

The tests wait for states (a request received, a row written), never for time to pass.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from apps.webhooks.models import Delivery, DeliveryStatus
from apps.webhooks.public import publish
from tests.support.receivers import Reply
from tests.support.webhook_history import make_endpoint
from tests.support.webhooks import key_caller

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="needs PostgreSQL: worker processes share the test database"
    ),
]
ROOT = Path(__file__).resolve().parents[2]
CALL = {"id": "call_1", "object": "call", "status": "completed"}


def worker(*args, lease: int = 300):
    db = connection.settings_dict
    url = (
        f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    )
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "JOBS_POLL_SECONDS": "0.05",
        "JOBS_LEASE_SECONDS": str(lease),
        # The secrets were encrypted by this process: the worker decrypts them with the same keys.
        "WEBHOOK_SECRET_KEYS": ",".join(settings.WEBHOOK_SECRET_KEYS),
        "SECRET_KEY": "test-only-secret-key-not-for-any-deployment-0123456789",
        # The receivers are on loopback, as on a developer's machine.
        "WEBHOOK_ALLOW_LOOPBACK": "1",
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", "run_worker", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def wait_until(condition, proc=None, timeout=60, what="the expected state"):
    deadline = time.monotonic() + timeout
    while not condition():
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"the worker exited: {proc.stdout.read()}")
        if time.monotonic() > deadline:
            pytest.fail(f"never reached {what}")
        time.sleep(0.02)


def stop(proc, sig=signal.SIGTERM):
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_a_worker_killed_mid_delivery_loses_no_event(owner, receiver):
    _key, caller = key_caller(owner)
    endpoint = make_endpoint(caller, receiver.url())
    receiver.replies = [Reply(200, hang=60)]  # the first request is held until the receiver is told
    event = publish(owner, "call.ended", CALL, livemode=False)
    first = worker(lease=2)
    try:
        wait_until(lambda: len(receiver.requests) == 1, first, what="the first request")
        os.kill(first.pid, signal.SIGKILL)
        first.wait(30)
    finally:
        stop(first)
    assert Delivery.objects.get(endpoint_id=endpoint["id"]).status == DeliveryStatus.PENDING
    second = worker(lease=2)
    try:
        wait_until(lambda: Delivery.objects.filter(status=DeliveryStatus.SUCCEEDED).exists(), second, what="a delivery")
    finally:
        stop(second)
    assert [r.headers["webhook-id"] for r in receiver.requests] == [event.id, event.id]
    assert Delivery.objects.get(endpoint_id=endpoint["id"]).attempt == 1  # the same attempt, sent again


def test_a_hanging_receiver_does_not_delay_another_endpoint(owner, receiver, other_receiver):
    _key, caller = key_caller(owner)
    make_endpoint(caller, receiver.url())
    make_endpoint(caller, other_receiver.url())
    receiver.reply = Reply(200, hang=30)
    proc = worker("--threads", "4")
    try:
        wait_until(lambda: "started" in (proc.stdout.readline() or ""), proc, what="the worker's start")
        publish(owner, "call.ended", CALL, livemode=False)
        wait_until(lambda: receiver.requests and other_receiver.requests, proc, what="both requests")
        arrived = time.monotonic()
        hung, other = receiver.received_at[0], other_receiver.received_at[0]
        assert other - hung < 1.0, f"the other endpoint's delivery waited {other - hung:.2f} s"
        assert arrived - other < 5  # while the hanging one is still held
        wait_until(lambda: Delivery.objects.filter(status=DeliveryStatus.SUCCEEDED).exists(), proc, what="a record")
        assert Delivery.objects.filter(status=DeliveryStatus.PENDING).count() == 1  # the held one
    finally:
        receiver.close()
        stop(proc)


def test_a_thousand_events_arrive_exactly_once_each_across_a_restart(owner, receiver):
    _key, caller = key_caller(owner)
    make_endpoint(caller, receiver.url())
    published = {publish(owner, "call.ended", {**CALL, "n": n}, livemode=False).id for n in range(1000)}
    first = worker("--threads", "4", lease=3)
    try:
        wait_until(lambda: len(receiver.requests) >= 300, first, timeout=120, what="300 deliveries")
        os.kill(first.pid, signal.SIGKILL)  # mid-stream: some attempts in flight, their outcome unwritten
        first.wait(30)
    finally:
        stop(first)
    second = worker("--threads", "4", lease=3)
    try:
        wait_until(
            lambda: not Delivery.objects.filter(status=DeliveryStatus.PENDING).exists(),
            second,
            timeout=300,
            what="every attempt recorded",
        )
    finally:
        stop(second)
    seen = [r.headers["webhook-id"] for r in receiver.requests]
    assert set(seen) == published  # every event arrived; a receiver deduping on webhook-id keeps each once
    assert Delivery.objects.filter(status=DeliveryStatus.SUCCEEDED).count() == 1000
    assert len(seen) - len(set(seen)) <= 4 * 10  # at most the attempts in flight at the kill were sent twice
