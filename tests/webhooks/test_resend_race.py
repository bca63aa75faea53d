"""Two presses of "resend what failed" at the same moment (PostgreSQL, real threads): each missed
event is queued once, never twice, however the presses interleave."""

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.utils import timezone

from apps.webhooks.models import Delivery, WebhookEndpoint
from apps.webhooks.public import deliveries_resend_failed
from tests.support.receivers import Reply
from tests.support.webhook_history import deliver_all, make_endpoint

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL: threads on in-memory SQLite do not share one database",
    ),
]


def _together(*fns):
    barrier = threading.Barrier(len(fns))
    results = [None] * len(fns)

    def run(i):
        try:
            barrier.wait(10)
            results[i] = fns[i]()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(fns))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


def test_two_presses_at_once_queue_each_event_once(owner, caller, receiver):
    endpoint = WebhookEndpoint.objects.get(pk=make_endpoint(caller, receiver.url())["id"])
    receiver.reply = Reply(status=500)
    went_down = timezone.now() - timedelta(hours=1)
    deliver_all(owner, 4, start=went_down)
    presses = _together(*[lambda: deliveries_resend_failed(endpoint=endpoint, since=went_down) for _ in range(3)])
    assert sorted(p.queued for p in presses) == [0, 0, 4]
    queued = Delivery.objects.filter(endpoint=endpoint, status="pending", manual=True)
    assert queued.count() == 4 and len({d.event_id for d in queued}) == 4
