"""Deliveries: Standard Webhooks signatures, the retry schedule on a controlled clock, disabling.

Receivers are real local servers (tests/support/receivers.py); the work runs with
``run_due`` at chosen instants (tests/support/jobs.py), never slept through.
"""

import base64
import hashlib
import hmac
import json
from datetime import timedelta
from itertools import pairwise

import pytest
from django.core import mail
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from apps.jobs.public import run_due
from apps.webhooks import delivery as delivery_module
from apps.webhooks.models import Delivery, WebhookEndpoint
from apps.webhooks.public import publish
from tests.support.jobs import frozen
from tests.support.receivers import Reply
from tests.support.webhook_history import make_endpoint

pytestmark = pytest.mark.django_db

CALL = {"id": "call_123", "object": "call", "status": "completed", "livemode": False}


def run_retries(clock, rounds: int) -> None:
    """Run the worker now, then at each pending delivery's time, ``rounds`` times at the most."""
    run_due()
    for _ in range(rounds):
        pending = Delivery.objects.filter(status="pending").order_by("scheduled_at").first()
        if pending is None:
            break
        clock.at = pending.scheduled_at
        run_due()


def deliveries(endpoint_id):
    return list(Delivery.objects.filter(endpoint_id=endpoint_id).order_by("created", "attempt"))


def by_hand(secret: str, request) -> bool:
    """The signature checked without the library: HMAC-SHA256 of id.timestamp.body under the secret's bytes."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{request.headers['webhook-id']}.{request.headers['webhook-timestamp']}.".encode() + request.body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(
        hmac.compare_digest(part.split(",", 1)[1], expected) for part in request.headers["webhook-signature"].split()
    )


class TestSigned:
    def test_ping_verified_with_standardwebhooks_and_by_hand(self, caller, receiver):
        endpoint = make_endpoint(caller, receiver.url())
        response = caller.post(f"/v1/webhook_endpoints/{endpoint['id']}/test")
        assert response.status_code == 202
        event = response.json()
        assert event["type"] == "ping" and event["object"] == "event"
        assert event["data"]["object"]["id"] == endpoint["id"]
        assert event["data"]["object"]["secret"] is None
        assert run_due() == 1
        [request] = receiver.requests
        assert request.headers["webhook-id"] == event["id"]
        assert request.headers["content-type"] == "application/json"
        payload = Webhook(endpoint["secret"]).verify(request.body, request.headers)
        assert payload == event
        assert by_hand(endpoint["secret"], request)
        assert not by_hand("whsec_" + base64.b64encode(b"x" * 32).decode(), request)
        [attempt] = deliveries(endpoint["id"])
        assert (attempt.status, attempt.response_status) == ("succeeded", 200)

    def test_a_published_event_reaches_subscribed_endpoints_of_its_mode_only(
        self, caller, owner, receiver, other_receiver
    ):
        subscribed = make_endpoint(caller, receiver.url())
        make_endpoint(caller, other_receiver.url(), events=["balance.low"])
        publish(owner, "call.ended", CALL, livemode=False)
        publish(owner, "call.ended", {**CALL, "livemode": True}, livemode=True)  # live: no test endpoint gets it
        run_due()
        assert len(receiver.requests) == 1
        assert other_receiver.requests == []
        body = Webhook(subscribed["secret"]).verify(receiver.requests[0].body, receiver.requests[0].headers)
        assert body["type"] == "call.ended" and body["livemode"] is False
        assert body["data"]["object"] == CALL

    def test_live_events_reach_live_endpoints_only(self, caller, live_caller, owner, receiver, live_receiver):
        live = make_endpoint(live_caller, live_receiver.url(host="hooks.example.test"))
        make_endpoint(caller, receiver.url())
        publish(owner, "call.ended", CALL, livemode=True)
        run_due()
        assert receiver.requests == []
        [request] = live_receiver.requests
        assert request.headers["host"] == f"hooks.example.test:{live_receiver.port}"
        assert Webhook(live["secret"]).verify(request.body, request.headers)["livemode"] is True

    def test_thin_events_never_carry_a_body_or_a_code(self, caller, owner, receiver):
        make_endpoint(caller, receiver.url(), events=["message.received", "transcript.completed"])
        from apps.accounts.security import sharing_update
        from tests.messages.factories import make_sms_number

        number = make_sms_number(owner, livemode=False)  # shared: the messages app's gate lets it through
        sharing_update(user=owner, call_summaries=True, message_reading=True)
        message = {
            "id": "msg_1",
            "object": "message",
            "number": number.id,
            "from": "+12025550150",
            "body": "Your Demo code is 123456.",
            "one_time_code": {"code": "123456", "domain": "demo.example"},
            "created": 1,
        }
        publish(owner, "message.received", message, livemode=False)
        publish(
            owner,
            "transcript.completed",
            {"id": "tr_1", "object": "transcript", "call": "call_1", "status": "completed", "summary": "secret talk"},
            livemode=False,
        )
        run_due()
        objects = [json.loads(r.body)["data"]["object"] for r in receiver.requests]
        assert {"id": "msg_1", "object": "message", "number": number.id, "created": 1} in objects
        assert {"id": "tr_1", "object": "transcript", "call": "call_1", "status": "completed"} in objects
        assert all(b"123456" not in r.body and b"secret talk" not in r.body for r in receiver.requests)


class TestRotation:
    def test_two_signatures_while_the_old_secret_lives_then_one(self, caller, receiver):
        endpoint = make_endpoint(caller, receiver.url())
        rotated = caller.post(f"/v1/webhook_endpoints/{endpoint['id']}/rotate_secret", {"expires_in": 3600}).json()
        caller.post(f"/v1/webhook_endpoints/{endpoint['id']}/test")
        run_due()
        request = receiver.requests[-1]
        assert len(request.headers["webhook-signature"].split()) == 2
        for secret in (endpoint["secret"], rotated["secret"]):
            Webhook(secret).verify(request.body, request.headers)
            assert by_hand(secret, request)
        with frozen(timezone.now() + timedelta(seconds=3601)):
            caller.post(f"/v1/webhook_endpoints/{endpoint['id']}/test")
            run_due()
        request = receiver.requests[-1]
        assert len(request.headers["webhook-signature"].split()) == 1
        assert by_hand(rotated["secret"], request)
        assert not by_hand(endpoint["secret"], request)


class TestSchedule:
    def _failing_endpoint(self, caller, receiver, status=500):
        receiver.reply = Reply(status)
        return make_endpoint(caller, receiver.url())

    def test_test_mode_retries_at_5_s_and_5_min_then_stops(self, caller, owner, receiver):
        endpoint = self._failing_endpoint(caller, receiver)
        start = timezone.now()
        with frozen(start) as clock:
            publish(owner, "call.ended", CALL, livemode=False)
            run_retries(clock, rounds=6)
        attempts = deliveries(endpoint["id"])
        assert [a.attempt for a in attempts] == [1, 2, 3]
        assert all(a.status == "failed" and a.response_status == 500 for a in attempts)
        gaps = [(b.scheduled_at - a.scheduled_at).total_seconds() for a, b in pairwise(attempts)]
        assert 4.5 <= gaps[0] <= 5.5
        assert 270 <= gaps[1] <= 330
        assert attempts[-1].next_attempt_at is None
        assert len(receiver.requests) == 3

    def test_live_mode_schedule_with_jitter(self, live_caller, owner, live_receiver):
        live_receiver.reply = Reply(503)
        endpoint = make_endpoint(live_caller, live_receiver.url(host="hooks.example.test"))
        with frozen(timezone.now()) as clock:
            publish(owner, "call.ended", CALL, livemode=True)
            run_retries(clock, rounds=10)
        attempts = deliveries(endpoint["id"])
        assert len(attempts) == 8
        gaps = [(b.scheduled_at - a.scheduled_at).total_seconds() for a, b in pairwise(attempts)]
        for gap, nominal in zip(gaps, delivery_module.RETRY_DELAYS, strict=True):
            assert nominal * 0.9 <= gap <= nominal * 1.1
        assert WebhookEndpoint.objects.get(pk=endpoint["id"]).enabled  # about 28 h of failures: not yet 5 days

    @pytest.mark.parametrize("status", [429, 503])
    def test_retry_after_brings_the_next_attempt_forward(self, caller, owner, receiver, status):
        endpoint = make_endpoint(caller, receiver.url())
        receiver.replies = [Reply(200)]  # the first attempt of a second event
        receiver.reply = Reply(status, headers={"Retry-After": "2"})
        receiver.replies = []
        with frozen(timezone.now()) as clock:
            publish(owner, "call.ended", CALL, livemode=False)
            run_due()
            first = deliveries(endpoint["id"])[0]
            assert (first.next_attempt_at - first.finished_at).total_seconds() == pytest.approx(2, abs=0.01)
            clock.at = first.next_attempt_at
            run_due()  # second attempt, again Retry-After 2 s, but the slot (5 min) is later: 2 s
            second = deliveries(endpoint["id"])[1]
            assert (second.next_attempt_at - second.finished_at).total_seconds() == pytest.approx(2, abs=0.01)

    def test_retry_after_never_delays_past_the_slot(self, caller, owner, receiver):
        endpoint = make_endpoint(caller, receiver.url())
        receiver.reply = Reply(429, headers={"Retry-After": "86400"})
        publish(owner, "call.ended", CALL, livemode=False)
        run_due()
        first = deliveries(endpoint["id"])[0]
        assert 4.5 <= (first.next_attempt_at - first.finished_at).total_seconds() <= 5.5

    def test_410_disables_the_endpoint(self, caller, owner, receiver):
        endpoint = make_endpoint(caller, receiver.url())
        receiver.reply = Reply(410)
        publish(owner, "call.ended", CALL, livemode=False)
        run_due()
        read = caller.get(f"/v1/webhook_endpoints/{endpoint['id']}").json()
        assert (read["status"], read["disabled_reason"]) == ("disabled", "gone")
        assert deliveries(endpoint["id"])[0].next_attempt_at is None
        publish(owner, "call.ended", CALL, livemode=False)
        run_due()
        assert len(receiver.requests) == 1

    def test_a_redirect_is_a_failure_never_followed(self, caller, owner, receiver, other_receiver):
        endpoint = make_endpoint(caller, receiver.url())
        receiver.reply = Reply(302, headers={"Location": other_receiver.url()})
        publish(owner, "call.ended", CALL, livemode=False)
        run_due()
        attempt = deliveries(endpoint["id"])[0]
        assert attempt.status == "failed" and attempt.response_status == 302
        assert other_receiver.requests == []

    def test_five_days_of_failures_disable_and_email_the_owner(
        self, caller, owner, receiver, django_capture_on_commit_callbacks
    ):
        endpoint = make_endpoint(caller, receiver.url())
        receiver.reply = Reply(500)
        start = timezone.now()
        with frozen(start) as clock, django_capture_on_commit_callbacks(execute=True):
            for day in range(6):
                clock.at = start + timedelta(days=day)
                publish(owner, "call.ended", CALL, livemode=False)
                run_due()
        read = caller.get(f"/v1/webhook_endpoints/{endpoint['id']}").json()
        assert (read["status"], read["disabled_reason"]) == ("disabled", "failing")
        assert len(mail.outbox) == 1
        assert mail.outbox[0].to == [owner.email]
        assert endpoint["id"] in mail.outbox[0].body

    def test_a_success_ends_the_run_of_failures(self, caller, owner, receiver):
        endpoint = make_endpoint(caller, receiver.url())
        start = timezone.now()
        with frozen(start) as clock:
            for day in range(6):
                clock.at = start + timedelta(days=day)
                receiver.reply = Reply(200 if day == 3 else 500)
                publish(owner, "call.ended", CALL, livemode=False)
                run_due()
        assert caller.get(f"/v1/webhook_endpoints/{endpoint['id']}").json()["status"] == "enabled"
        assert mail.outbox == []

    def test_an_address_that_turned_private_is_refused_at_the_attempt(self, live_caller, owner, live_receiver, dns):
        endpoint = make_endpoint(live_caller, live_receiver.url(host="hooks.example.test"))
        dns.answers["hooks.example.test"] = ["10.0.0.5"]
        publish(owner, "call.ended", CALL, livemode=True)
        run_due()
        attempt = deliveries(endpoint["id"])[0]
        assert (attempt.status, attempt.error) == ("failed", "the URL's host did not resolve to a public address")
        assert "10.0.0.5" not in attempt.error
        assert live_receiver.requests == []
