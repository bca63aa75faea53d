"""What one delivery costs the database, counted statement by statement on SQLite and PostgreSQL.

A delivery reads its attempt with the endpoint and the event, asks whether the endpoint's
owner still stands (another app's read), POSTs, and writes its outcome in one conditional
statement, which on PostgreSQL also marks its work row done; the row's claim is the durable
work's own, shared by the rows it takes at once.
"""

import pytest
from django.db import connection

from apps.core import egress
from apps.jobs.lanes import DELIVERIES
from apps.jobs.public import run_due
from apps.webhooks.delivery import deliver
from apps.webhooks.models import Delivery, WebhookEndpoint
from apps.webhooks.public import publish
from tests.support.receivers import Reply
from tests.support.sql import statement_texts

pytestmark = pytest.mark.django_db(transaction=True)
CALL = {"id": "call_123", "object": "call", "status": "completed", "livemode": False}


def make_endpoint(caller, url, events=("call.ended",)):
    response = caller.post("/v1/webhook_endpoints", {"url": url, "enabled_events": list(events)})
    assert response.status_code == 201, response.content
    return response.json()


# The lane's claim: whether anything is due, the turn (BEGIN IMMEDIATE on SQLite, an advisory lock on
# PostgreSQL), the lane's running rows, the window read, the lease; then the success mark.
LANE_CLAIM = 5
# On PostgreSQL the outcome's write marks the row done (apps.jobs.public.finish_with); SQLite has
# no data-modifying WITH, so the mark is a statement of its own there.
SUCCESS_MARK = 0 if connection.vendor == "postgresql" else 1


@pytest.fixture(autouse=True)
def fresh_connections():
    egress.close_kept_pools()
    yield
    egress.close_kept_pools()


def one_event(caller, owner, receiver):
    make_endpoint(caller, receiver.url())
    publish(owner, "call.ended", CALL, livemode=False)
    return Delivery.objects.get()


def test_a_successful_delivery_is_three_statements(caller, owner, receiver):
    delivery = one_event(caller, owner, receiver)
    with statement_texts() as sent:
        outcome = deliver(delivery.pk)
    assert outcome.succeeded
    assert len(sent) == 3, sent
    assert sent[0].startswith('SELECT "webhooks_delivery"')  # the attempt, its endpoint and event
    assert sent[-1].startswith('UPDATE "webhooks_delivery"')  # the outcome, once: only while pending
    assert Delivery.objects.get().status == "succeeded"


def test_a_delivery_through_the_lane_claim_included(caller, owner, receiver):
    one_event(caller, owner, receiver)
    with statement_texts() as sent:
        assert run_due(lane=DELIVERIES, limit=1) == 1
    assert len(sent) == LANE_CLAIM + 3 + SUCCESS_MARK, sent
    assert len(receiver.requests) == 1


def test_a_batch_shares_its_claim(caller, owner, receiver):
    make_endpoint(caller, receiver.url())
    for n in range(10):
        publish(owner, "call.ended", {**CALL, "id": f"call_{n}"}, livemode=False)
    with statement_texts() as sent:
        assert run_due() == 10
    # Two statements claim the ten (the due rows locked and read, the lease), one more look finds
    # nothing left; each delivery is its three (and on SQLite its row's success mark): 3.3 a
    # delivery on PostgreSQL, 4.3 on SQLite.
    assert len(sent) == 2 + 10 * (3 + SUCCESS_MARK) + 1, sent


def test_a_success_after_failures_clears_the_endpoints_run_of_them(caller, owner, receiver):
    receiver.replies = [Reply(500)]
    endpoint = make_endpoint(caller, receiver.url())
    publish(owner, "call.ended", CALL, livemode=False)
    run_due()
    assert WebhookEndpoint.objects.get(pk=endpoint["id"]).failing_since is not None
    retry = Delivery.objects.get(status="pending")
    with statement_texts() as sent:
        assert deliver(retry.pk).succeeded
    assert len(sent) == 4  # and the endpoint's run of failures cleared
    assert WebhookEndpoint.objects.get(pk=endpoint["id"]).failing_since is None
