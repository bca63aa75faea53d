"""Two presses of "resend what failed" at the same moment (PostgreSQL, real threads): each missed
event is queued once, never twice, however the presses interleave."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.webhooks.models import Delivery, WebhookEndpoint
from apps.webhooks.public import deliveries_resend_failed
from tests.support.races import postgresql_only, together
from tests.support.receivers import Reply
from tests.support.webhook_history import deliver_all, make_endpoint

pytestmark = [pytest.mark.django_db(transaction=True), postgresql_only]


def test_two_presses_at_once_queue_each_event_once(owner, caller, receiver):
    endpoint = WebhookEndpoint.objects.get(pk=make_endpoint(caller, receiver.url())["id"])
    receiver.reply = Reply(status=500)
    went_down = timezone.now() - timedelta(hours=1)
    deliver_all(owner, 4, start=went_down)
    presses = together(lambda _i: deliveries_resend_failed(endpoint=endpoint, since=went_down), 3)
    assert sorted(p.queued for p in presses) == [0, 0, 4]
    queued = Delivery.objects.filter(endpoint=endpoint, status="pending", manual=True)
    assert queued.count() == 4 and len({d.event_id for d in queued}) == 4
