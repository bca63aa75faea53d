"""Resending what failed while a receiver was down, the attempt's duration, and the account-wide
reads the Webhooks page uses (apps/webhooks/resend.py, selectors.py)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.core.errors import ApiError
from apps.jobs.public import run_due
from apps.webhooks.models import Delivery, WebhookEndpoint
from apps.webhooks.public import (
    RESEND_LIMIT,
    deliveries_resend_failed,
    delivery_body,
    delivery_get_for_account,
    endpoint_get_for_account,
    endpoint_list_for_account,
    endpoint_state,
    publish,
)
from tests.support.factories import UserFactory
from tests.support.receivers import Reply
from tests.support.webhook_history import call, deliver_all, make_endpoint
from tests.support.webhooks import key_caller

pytestmark = pytest.mark.django_db


def down_then_up(owner, caller, receiver, *, count=3):
    """An endpoint whose receiver answered 500 to every attempt of ``count`` events (retries spent),
    then came back up; returns the endpoint and the moment it went down."""
    endpoint = WebhookEndpoint.objects.get(pk=make_endpoint(caller, receiver.url())["id"])
    receiver.reply = Reply(status=500)
    went_down = timezone.now() - timedelta(hours=2)
    deliver_all(owner, count, start=went_down)
    receiver.reply = Reply(status=200)
    return endpoint, went_down


def pending(endpoint) -> list[Delivery]:
    return list(Delivery.objects.filter(endpoint=endpoint, status="pending"))


class TestResendFailed:
    def test_each_missed_event_is_queued_once_and_then_delivered(self, owner, caller, receiver):
        endpoint, went_down = down_then_up(owner, caller, receiver)
        resent = deliveries_resend_failed(endpoint=endpoint, since=went_down - timedelta(minutes=1))
        assert (resent.queued, resent.remaining) == (3, 0)
        queued = pending(endpoint)
        assert len(queued) == 3 and all(d.manual for d in queued)
        assert len({d.event_id for d in queued}) == 3
        assert run_due() == 3
        assert all(d.status == "succeeded" for d in Delivery.objects.filter(pk__in=[d.pk for d in queued]))

    def test_pressing_twice_queues_nothing_twice(self, owner, caller, receiver):
        endpoint, went_down = down_then_up(owner, caller, receiver)
        first = deliveries_resend_failed(endpoint=endpoint, since=went_down)
        second = deliveries_resend_failed(endpoint=endpoint, since=went_down)
        assert (first.queued, second.queued) == (3, 0)
        assert len(pending(endpoint)) == 3
        run_due()
        # Delivered since: a third press has nothing left to send.
        assert deliveries_resend_failed(endpoint=endpoint, since=went_down).queued == 0

    def test_an_event_that_fails_again_can_be_resent_again(self, owner, caller, receiver):
        endpoint, went_down = down_then_up(owner, caller, receiver, count=1)
        receiver.reply = Reply(status=503)
        deliveries_resend_failed(endpoint=endpoint, since=went_down)
        run_due()
        receiver.reply = Reply(status=200)
        assert deliveries_resend_failed(endpoint=endpoint, since=went_down).queued == 1

    def test_only_what_failed_since_the_moment_given(self, owner, caller, receiver):
        endpoint, _went_down = down_then_up(owner, caller, receiver, count=2)
        later = timezone.now() - timedelta(minutes=30)
        receiver.reply = Reply(status=500)
        deliver_all(owner, 1, start=later, first=10)
        resent = deliveries_resend_failed(endpoint=endpoint, since=later)
        assert resent.queued == 1
        assert [d.event.data["id"] for d in pending(endpoint)] == ["call_0010"]

    def test_delivered_events_and_other_endpoints_are_left_alone(self, owner, caller, receiver, other_receiver):
        endpoint, went_down = down_then_up(owner, caller, receiver, count=2)
        other = WebhookEndpoint.objects.get(pk=make_endpoint(caller, other_receiver.url())["id"])
        other_receiver.reply = Reply(status=500)
        deliver_all(owner, 1, start=timezone.now() - timedelta(minutes=5), first=20)  # both endpoints get it
        resent = deliveries_resend_failed(endpoint=endpoint, since=went_down)
        assert resent.queued == 2  # call_0020 reached this endpoint: not sent again
        assert pending(other) == []
        assert deliveries_resend_failed(endpoint=other, since=went_down).queued == 1

    def test_bounded_a_press_and_the_next_press_queues_the_rest(self, owner, caller, receiver, monkeypatch):
        from apps.webhooks import resend

        monkeypatch.setattr(resend, "RESEND_LIMIT", 2)
        endpoint, went_down = down_then_up(owner, caller, receiver, count=5)
        first = deliveries_resend_failed(endpoint=endpoint, since=went_down)
        assert (first.queued, first.remaining) == (2, 3)
        oldest = sorted(d.event.data["id"] for d in pending(endpoint))
        assert oldest == ["call_0000", "call_0001"]
        second = deliveries_resend_failed(endpoint=endpoint, since=went_down)
        assert (second.queued, second.remaining) == (2, 1)
        assert deliveries_resend_failed(endpoint=endpoint, since=went_down).queued == 1
        assert len(pending(endpoint)) == 5
        assert RESEND_LIMIT == 100

    def test_a_type_the_endpoint_no_longer_receives_is_not_resent(self, owner, caller, receiver):
        endpoint, went_down = down_then_up(owner, caller, receiver)
        caller.post(f"/v1/webhook_endpoints/{endpoint.pk}", {"enabled_events": ["balance.low"]})
        assert deliveries_resend_failed(endpoint=endpoint, since=went_down).queued == 0

    def test_a_disabled_endpoint_or_a_future_moment_is_refused_and_queues_nothing(self, owner, caller, receiver):
        endpoint, went_down = down_then_up(owner, caller, receiver)
        with pytest.raises(ApiError) as future:
            deliveries_resend_failed(endpoint=endpoint, since=timezone.now() + timedelta(hours=1))
        assert future.value.param == "since"
        caller.post(f"/v1/webhook_endpoints/{endpoint.pk}", {"disabled": True})
        endpoint.refresh_from_db()
        with pytest.raises(ApiError):
            deliveries_resend_failed(endpoint=endpoint, since=went_down)
        assert pending(endpoint) == []

    def test_a_moment_before_the_retention_reads_as_the_oldest_kept(self, owner, caller, receiver, settings):
        endpoint, _went_down = down_then_up(owner, caller, receiver, count=1)
        now = timezone.now()
        resent = deliveries_resend_failed(endpoint=endpoint, since=now - timedelta(days=365), now=now)
        assert resent.queued == 1
        assert resent.since == now - timedelta(days=settings.WEBHOOK_EVENT_RETENTION_DAYS)


class TestRecorded:
    def test_each_attempt_records_how_long_the_receiver_took(self, owner, caller, receiver):
        endpoint = make_endpoint(caller, receiver.url())
        receiver.reply = Reply(status=200, hang=0.05)
        deliver_all(owner, 1, start=timezone.now())
        attempt = Delivery.objects.get(endpoint_id=endpoint["id"])
        assert attempt.duration_ms is not None and 50 <= attempt.duration_ms < 10_000

    def test_a_skipped_attempt_has_no_duration(self, owner, caller, receiver):
        endpoint = make_endpoint(caller, receiver.url())
        publish(owner, "call.ended", call(1), livemode=False)
        caller.post(f"/v1/webhook_endpoints/{endpoint['id']}", {"disabled": True})
        run_due()
        attempt = Delivery.objects.get(endpoint_id=endpoint["id"])
        assert attempt.status == "skipped" and attempt.duration_ms is None
        assert receiver.requests == []

    def test_the_body_shown_is_the_body_sent(self, owner, caller, receiver):
        endpoint = make_endpoint(caller, receiver.url())
        deliver_all(owner, 1, start=timezone.now())
        attempt = Delivery.objects.select_related("event").get(endpoint_id=endpoint["id"])
        assert delivery_body(attempt).encode() == receiver.requests[0].body


class TestAccountReads:
    def test_both_modes_of_the_account_and_nothing_of_another(self, owner, caller, live_caller, receiver, dns):
        test_mode = make_endpoint(caller, receiver.url())
        live = make_endpoint(live_caller, "https://hooks.example.com/live")
        stranger = UserFactory()
        theirs = make_endpoint(key_caller(stranger)[1], receiver.url("/theirs"))
        assert [e.pk for e in endpoint_list_for_account(user_id=owner.pk)] == [live["id"], test_mode["id"]]
        assert endpoint_get_for_account(user_id=owner.pk, endpoint_id=theirs["id"]) is None
        assert endpoint_get_for_account(user_id=stranger.pk, endpoint_id=theirs["id"]).pk == theirs["id"]
        for malformed in ("", "we_", "we_x\x00", "dlv_abc", None, 7):
            assert endpoint_get_for_account(user_id=owner.pk, endpoint_id=malformed) is None

    def test_another_accounts_delivery_reads_as_absent(self, owner, caller, receiver):
        stranger = UserFactory()
        make_endpoint(key_caller(stranger)[1], receiver.url("/theirs"))
        deliver_all(stranger, 1, start=timezone.now())
        theirs = Delivery.objects.get()
        assert delivery_get_for_account(user_id=owner.pk, delivery_id=theirs.pk) is None
        assert delivery_get_for_account(user_id=stranger.pk, delivery_id=theirs.pk) == theirs
        assert delivery_get_for_account(user_id=stranger.pk, delivery_id="dlv_\x00") is None

    def test_state_is_enabled_failing_or_disabled(self, owner, caller, receiver):
        endpoint = WebhookEndpoint.objects.get(pk=make_endpoint(caller, receiver.url())["id"])
        assert endpoint_state(endpoint) == "enabled"
        receiver.reply = Reply(status=500)
        deliver_all(owner, 1, start=timezone.now())
        endpoint.refresh_from_db()
        assert endpoint_state(endpoint) == "failing"
        caller.post(f"/v1/webhook_endpoints/{endpoint.pk}", {"disabled": True})
        endpoint.refresh_from_db()
        assert endpoint_state(endpoint) == "disabled"
