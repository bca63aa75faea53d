"""One account's hung receivers cost that account's slots, not the worker (docs/webhooks, "Delivery").

The experiment, with a real worker on PostgreSQL and real time: account A aims its 16 test-mode
endpoints at a receiver on loopback that accepts every request and never answers, and queues a
backlog of pings. Once the worker holds A's attempts, account B sends a ping and places a
simulated call. B's ping must arrive in under 5 s, and B's call must reach ``ringing`` (the
simulator's press-1 event, due 4 s after placing) less than 2 s late; meanwhile A never has
more than 2 attempts in flight. Nothing here sleeps for time to pass: it waits on states, within
the one real hang the experiment measures against (the 10 s delivery timeout).
"""

import json
import time

import pytest
from django.db import connection

from apps.calls.models import Call
from apps.webhooks.models import Delivery, WebhookEndpoint
from apps.webhooks.services import endpoint_send_test
from tests.calls.callbacks import Placer, ready
from tests.support.factories import UserFactory
from tests.support.jobs_processes import SharedDatabase
from tests.support.receivers import Receiver, Reply
from tests.support.webhooks import key_caller

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the experiment runs the worker on PostgreSQL"),
]

HUNG_ENDPOINTS = 16
BACKLOG = 84
PING_WITHIN = 5.0
CALL_LATE_BY_AT_MOST = 2.0
PRESS_1_AFTER = 4.0  # the simulator's default own number: answers in 2 s, presses 1 in 2 s


def wait_until(condition, *, within: float, worker, what: str) -> float:
    """Waits for a state of the worker's making; returns when it held (time.monotonic())."""
    deadline = time.monotonic() + within
    while not condition():
        if worker.poll() is not None:
            pytest.fail(f"the worker exited: {worker.stdout.read()}")
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {within} s")
        time.sleep(0.02)
    return time.monotonic()


@pytest.fixture
def hung():
    server = Receiver()
    server.reply = Reply(hang=3600)  # accepts, reads, never answers (released when the test ends)
    yield server
    server.close()


@pytest.fixture
def healthy():
    server = Receiver()
    yield server
    server.close()


def test_one_accounts_hung_endpoints_do_not_delay_another_accounts_ping_or_call(tmp_path, hung, healthy):
    noisy, quiet = UserFactory(email="noisy@example.com"), UserFactory(email="quiet@example.com")
    _key, noisy_caller = key_caller(noisy)
    endpoints = []
    for n in range(HUNG_ENDPOINTS):
        answer = noisy_caller.post(
            "/v1/webhook_endpoints", {"url": hung.url(f"/hang/{n}"), "enabled_events": ["call.ended"]}
        )
        assert answer.status_code == 201, answer.content
        endpoints.append(WebhookEndpoint.objects.get(pk=answer.json()["id"]))
    for n in range(BACKLOG):
        endpoint_send_test(endpoint=endpoints[n % HUNG_ENDPOINTS])
    _key, quiet_caller = key_caller(quiet)
    answer = quiet_caller.post("/v1/webhook_endpoints", {"url": healthy.url(), "enabled_events": ["call.ended"]})
    quiet_endpoint = WebhookEndpoint.objects.get(pk=answer.json()["id"])
    ready(quiet)
    placer = Placer(quiet)

    shared = SharedDatabase(tmp_path)
    # The worker as deployed: its lanes' own threads, a 1 s poll, the 10 s delivery timeout.
    worker = shared.process(env={"JOBS_POLL_SECONDS": "1", "WEBHOOK_ALLOW_LOOPBACK": "1"})
    try:
        wait_until(lambda: len(hung.requests) >= 2, within=60, worker=worker, what="the worker taking A's attempts")

        sent = time.monotonic()
        ping = endpoint_send_test(endpoint=quiet_endpoint)
        call = placer.quote_and_place()
        placed = time.monotonic()
        assert call["status"] == "ringing_you"

        arrived = wait_until(lambda: healthy.requests, within=PING_WITHIN, worker=worker, what="B's ping")
        assert json.loads(healthy.requests[0].body)["id"] == ping.id
        # Read from the table, not through GET (a read of a live simulated call would apply it itself).
        rang = wait_until(
            lambda: Call.objects.get(pk=call["id"]).status != "ringing_you",
            within=PRESS_1_AFTER + CALL_LATE_BY_AT_MOST,
            worker=worker,
            what="B's call reaching ringing",
        )
        assert Call.objects.get(pk=call["id"]).status == "ringing"
        # Still inside the first hang: A has had exactly its two slots, no more.
        in_flight = len(hung.requests)
    finally:
        worker.kill()
        worker.wait(30)

    assert arrived - sent < PING_WITHIN
    assert rang - placed < PRESS_1_AFTER + CALL_LATE_BY_AT_MOST
    assert in_flight == 2
    assert not Delivery.objects.filter(endpoint__user=noisy, status="succeeded").exists()
