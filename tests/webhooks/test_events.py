"""/v1/events (30 days, filters, the caller's types only), one event, redelivery, and the deliveries list."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.jobs.public import run_due
from apps.webhooks.models import Delivery, Event
from apps.webhooks.public import publish
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory
from tests.support.jobs import frozen
from tests.support.receivers import Reply
from tests.support.webhooks import key_caller

pytestmark = pytest.mark.django_db

CALL = {"id": "call_1", "object": "call", "status": "completed"}
EVENT_FIELDS = {"id", "object", "type", "created", "api_version", "livemode", "data"}


def make_endpoint(caller, url, events=("call.ended",)):
    response = caller.post("/v1/webhook_endpoints", {"url": url, "enabled_events": list(events)})
    assert response.status_code == 201, response.content
    return response.json()


class TestList:
    def test_newest_first_with_the_event_shape(self, caller, owner):
        first = publish(owner, "call.ended", CALL, livemode=False)
        second = publish(owner, "balance.low", {"amount": 150, "currency": "usd"}, livemode=False)
        body = caller.get("/v1/events").json()
        assert body["object"] == "list"
        assert [e["id"] for e in body["data"]] == [second.id, first.id]
        event = body["data"][1]
        assert set(event) == EVENT_FIELDS
        assert event["object"] == "event" and event["type"] == "call.ended" and event["livemode"] is False
        assert event["data"] == {"object": CALL}
        assert event["id"].startswith("ev_")

    def test_only_this_account_and_mode(self, caller, owner):
        publish(owner, "call.ended", CALL, livemode=True)
        publish(UserFactory(), "call.ended", CALL, livemode=False)
        assert caller.get("/v1/events").json()["data"] == []

    def test_only_types_the_callers_scopes_allow(self, owner):
        publish(owner, "call.ended", CALL, livemode=False)
        publish(owner, "balance.low", {"amount": 1, "currency": "usd"}, livemode=False)
        _key, narrow = key_caller(owner, scopes=["webhooks:manage", "credits:read"])
        assert [e["type"] for e in narrow.get("/v1/events").json()["data"]] == ["balance.low"]

    def test_kept_30_days(self, caller, owner):
        old = publish(owner, "call.ended", CALL, livemode=False, now=timezone.now() - timedelta(days=31))
        recent = publish(owner, "call.ended", CALL, livemode=False, now=timezone.now() - timedelta(days=29))
        assert [e["id"] for e in caller.get("/v1/events").json()["data"]] == [recent.id]
        assert_error(caller.get(f"/v1/events/{old.id}"), 404, "not_found", param="event_id")

    def test_filters(self, caller, owner):
        now = timezone.now()
        publish(owner, "call.ended", CALL, livemode=False, now=now - timedelta(hours=2))
        late = publish(owner, "call.ended", CALL, livemode=False, now=now)
        low = publish(owner, "balance.low", {"amount": 1, "currency": "usd"}, livemode=False, now=now)
        by_type = caller.get("/v1/events", {"type": "balance.low"}).json()["data"]
        assert [e["id"] for e in by_type] == [low.id]
        since = caller.get("/v1/events", {"created[gte]": int((now - timedelta(hours=1)).timestamp())}).json()
        assert {e["id"] for e in since["data"]} == {late.id, low.id}

    @pytest.mark.parametrize(
        ("params", "param"),
        [
            ({"type": "call.nope"}, "type"),
            ({"created[gte]": "yesterday"}, "created[gte]"),
            ({"created[gte]": "-5"}, "created[gte]"),
        ],
    )
    def test_invalid_filters(self, caller, params, param):
        assert_error(caller.get("/v1/events", params), 400, "invalid_request", param=param)

    def test_scope_required(self, owner):
        _key, other = key_caller(owner, scopes=["calls:read"])
        assert_error(other.get("/v1/events"), 403, "insufficient_scope")


class TestOne:
    def test_read(self, caller, owner):
        event = publish(owner, "call.ended", CALL, livemode=False)
        body = caller.get(f"/v1/events/{event.id}").json()
        assert body["id"] == event.id and body["data"] == {"object": CALL}

    @pytest.mark.parametrize("event_id", ["ev_nope", "evt_abc", "x"])
    def test_unknown(self, caller, event_id):
        assert_error(caller.get(f"/v1/events/{event_id}"), 404, "not_found", param="event_id")

    def test_another_accounts_event_is_absent(self, caller):
        theirs = publish(UserFactory(), "call.ended", CALL, livemode=False)
        assert_error(caller.get(f"/v1/events/{theirs.id}"), 404, "not_found", param="event_id")


class TestRedeliver:
    def test_sends_once_now_outside_the_schedule(self, caller, owner, receiver):
        endpoint = make_endpoint(caller, receiver.url())
        receiver.reply = Reply(500)
        event = publish(owner, "call.ended", CALL, livemode=False)
        run_due()
        receiver.reply = Reply(200)
        response = caller.post(f"/v1/events/{event.id}/redeliver", {"endpoint": endpoint["id"]})
        assert response.status_code == 202
        body = response.json()
        assert body["object"] == "webhook_delivery" and body["manual"] is True and body["status"] == "pending"
        assert body["event"] == event.id and body["endpoint"] == endpoint["id"]
        run_due()  # the manual attempt (the schedule's retry is not due yet)
        assert len(receiver.requests) == 2
        assert {r.headers["webhook-id"] for r in receiver.requests} == {event.id}
        assert Delivery.objects.get(pk=body["id"]).status == "succeeded"

    def test_a_failed_redelivery_is_not_retried(self, caller, owner, receiver):
        endpoint = make_endpoint(caller, receiver.url())
        event = publish(owner, "call.ended", CALL, livemode=False)
        run_due()
        receiver.reply = Reply(500)
        delivery_id = caller.post(f"/v1/events/{event.id}/redeliver", {"endpoint": endpoint["id"]}).json()["id"]
        run_due()
        attempt = Delivery.objects.get(pk=delivery_id)
        assert attempt.status == "failed" and attempt.next_attempt_at is None

    @pytest.mark.parametrize(
        ("body", "status", "code", "param"),
        [
            ({}, 400, "invalid_request", "endpoint"),
            ({"endpoint": 5}, 400, "invalid_request", "endpoint"),
            ({"endpoint": "we_nope"}, 404, "not_found", "endpoint"),
            ({"endpoint": "we_x", "force": True}, 400, "invalid_request", "force"),
        ],
    )
    def test_invalid(self, caller, owner, body, status, code, param):
        event = publish(owner, "call.ended", CALL, livemode=False)
        assert_error(caller.post(f"/v1/events/{event.id}/redeliver", body), status, code, param=param)
        assert Delivery.objects.count() == 0

    def test_an_endpoint_not_subscribed_or_disabled(self, caller, owner, receiver):
        other = make_endpoint(caller, receiver.url(), events=["balance.low"])
        event = publish(owner, "call.ended", CALL, livemode=False)
        response = caller.post(f"/v1/events/{event.id}/redeliver", {"endpoint": other["id"]})
        assert_error(response, 400, "invalid_request", param="endpoint")
        subscribed = make_endpoint(caller, receiver.url())
        caller.post(f"/v1/webhook_endpoints/{subscribed['id']}", {"disabled": True})
        response = caller.post(f"/v1/events/{event.id}/redeliver", {"endpoint": subscribed["id"]})
        assert_error(response, 400, "invalid_request", param="endpoint")

    def test_unknown_event(self, caller, receiver):
        endpoint = make_endpoint(caller, receiver.url())
        response = caller.post("/v1/events/ev_nope/redeliver", {"endpoint": endpoint["id"]})
        assert_error(response, 404, "not_found", param="event_id")


class TestDeliveries:
    def test_listed_newest_first_and_filtered_by_status(self, caller, owner, receiver):
        endpoint = make_endpoint(caller, receiver.url())
        receiver.replies = [Reply(500)]
        with frozen(timezone.now()) as clock:
            event = publish(owner, "call.ended", CALL, livemode=False)
            clock.at += timedelta(seconds=1)
            run_due()
            clock.at += timedelta(seconds=6)
            run_due()
        body = caller.get(f"/v1/webhook_endpoints/{endpoint['id']}/deliveries").json()
        assert [(d["attempt"], d["status"]) for d in body["data"]] == [(2, "succeeded"), (1, "failed")]
        failed = body["data"][1]
        assert failed["response_status"] == 500 and failed["event"] == event.id and failed["next_attempt_at"]
        assert failed["event_type"] == "call.ended" and failed["id"].startswith("dlv_")
        only_failed = caller.get(f"/v1/webhook_endpoints/{endpoint['id']}/deliveries", {"status": "failed"}).json()
        assert [d["attempt"] for d in only_failed["data"]] == [1]


def test_events_are_purged_after_their_retention(owner):
    from apps.webhooks.fanout import purge_events

    publish(owner, "call.ended", CALL, livemode=False, now=timezone.now() - timedelta(days=31))
    kept = publish(owner, "call.ended", CALL, livemode=False)
    assert purge_events() == 1
    assert list(Event.objects.values_list("id", flat=True)) == [kept.id]
