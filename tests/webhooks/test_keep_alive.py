"""A worker thread keeps its connection to a receiver between deliveries, and the guard still runs first.

Each delivery resolves the endpoint's host and checks every address again before it sends; a
kept connection is reused only for the address it was opened to once that address passed again.
Receivers are real local servers counting the TCP connections they accept.
"""

import pytest

from apps.core import egress
from apps.jobs.public import run_due
from apps.webhooks.delivery import NOT_PUBLIC
from apps.webhooks.models import Delivery
from apps.webhooks.public import publish
from tests.support.receivers import Reply
from tests.support.webhook_history import make_endpoint

pytestmark = pytest.mark.django_db
LIVE_HOST = "hooks.example.test"  # the live_receiver fixture's name
CALL = {"id": "call_123", "object": "call", "status": "completed", "livemode": False}


@pytest.fixture(autouse=True)
def fresh_connections():
    egress.close_kept_pools()
    yield
    egress.close_kept_pools()


def publish_calls(owner, count, *, livemode=False):
    for n in range(count):
        publish(owner, "call.ended", {**CALL, "id": f"call_{n}", "livemode": livemode}, livemode=livemode)


def test_deliveries_to_one_receiver_share_one_connection(caller, owner, receiver):
    make_endpoint(caller, receiver.url())
    publish_calls(owner, 5)
    assert run_due() == 5
    assert len(receiver.requests) == 5
    assert receiver.connections == 1
    assert set(Delivery.objects.values_list("status", flat=True)) == {"succeeded"}


def test_two_receivers_one_connection_each(caller, owner, receiver, other_receiver):
    make_endpoint(caller, receiver.url())
    make_endpoint(caller, other_receiver.url("/other"))
    publish_calls(owner, 3)
    run_due()
    assert (len(receiver.requests), len(other_receiver.requests)) == (3, 3)
    assert (receiver.connections, other_receiver.connections) == (1, 1)


@pytest.mark.parametrize(
    ("reply", "count"),
    [(Reply(200, headers={"Connection": "close"}), 3), (Reply(200, body=b"x" * 5000), 2)],
    ids=["a_receiver_that_closes_each_connection", "a_long_answer_left_unread"],
)
def test_a_connection_not_fit_to_keep_is_not_kept_and_every_delivery_arrives(caller, owner, receiver, reply, count):
    receiver.reply = reply
    make_endpoint(caller, receiver.url())
    publish_calls(owner, count)
    run_due()
    assert len(receiver.requests) == count
    assert receiver.connections == count
    assert set(Delivery.objects.values_list("status", flat=True)) == {"succeeded"}


def test_a_failed_attempt_starts_the_next_on_a_new_connection(caller, owner, receiver, settings):
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.5
    receiver.replies = [Reply(200, hang=2)]
    make_endpoint(caller, receiver.url())
    publish_calls(owner, 2)
    run_due()
    statuses = list(Delivery.objects.order_by("created", "attempt").values_list("status", flat=True))
    assert statuses[:2] == ["failed", "succeeded"]
    assert receiver.connections == 2


def test_the_host_is_checked_again_before_a_kept_connection_is_used(live_caller, owner, live_receiver, dns):
    make_endpoint(live_caller, live_receiver.url(host=LIVE_HOST))
    publish_calls(owner, 1, livemode=True)
    run_due()
    assert len(live_receiver.requests) == 1
    # The name now answers an internal address: the kept connection to the old one is not used.
    dns.answers[LIVE_HOST] = ["10.0.0.5"]
    publish_calls(owner, 1, livemode=True)
    run_due()
    assert len(live_receiver.requests) == 1
    assert list(Delivery.objects.filter(status="failed").values_list("error", flat=True)) == [NOT_PUBLIC]


def test_tls_connections_are_kept_too(live_caller, owner, live_receiver):
    make_endpoint(live_caller, live_receiver.url(host=LIVE_HOST))
    publish_calls(owner, 3, livemode=True)
    run_due()
    assert len(live_receiver.requests) == 3
    assert live_receiver.connections == 1
