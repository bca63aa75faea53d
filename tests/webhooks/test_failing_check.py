"""The hourly check: an endpoint whose deliveries have all failed for 5 days is disabled even when no
new event comes to it (its retries ran out), and its owner is told once."""

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from apps.jobs import schedules
from apps.jobs.public import run_due
from apps.webhooks.models import WebhookEndpoint
from tests.support.jobs import frozen
from tests.support.webhook_history import make_endpoint

pytestmark = pytest.mark.django_db


def test_an_endpoint_failing_for_5_days_is_disabled_by_the_hourly_check(
    caller, owner, receiver, django_capture_on_commit_callbacks
):
    failing = make_endpoint(caller, receiver.url())
    healthy = make_endpoint(caller, receiver.url())
    since = timezone.now()
    WebhookEndpoint.objects.filter(pk=failing["id"]).update(failing_since=since)
    with frozen(since + timedelta(days=4, hours=23)) as clock, django_capture_on_commit_callbacks(execute=True):
        schedules.seed()
        run_due(kinds=["webhooks.disable_failing"])
        assert WebhookEndpoint.objects.get(pk=failing["id"]).enabled
        clock.at = since + timedelta(days=5, hours=1)
        schedules.seed()
        assert run_due(kinds=["webhooks.disable_failing"]) == 1
    read = caller.get(f"/v1/webhook_endpoints/{failing['id']}").json()
    assert (read["status"], read["disabled_reason"]) == ("disabled", "failing")
    assert caller.get(f"/v1/webhook_endpoints/{healthy['id']}").json()["status"] == "enabled"
    assert [message.to for message in mail.outbox] == [[owner.email]]
