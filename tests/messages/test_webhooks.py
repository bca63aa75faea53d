"""message.received (docs/design.md "Webhooks"): made when a message arrives on a number whose
messages are shared (the number's opt-in and the account's message-reading switch), sent to the
endpoints of that account and mode that subscribe to it and whose credential holds messages:read,
thin (id, object, number, created: never a body or a code), and checked again at each attempt."""

import json

import pytest
from standardwebhooks.webhooks import Webhook

from apps.accounts.security import sharing_update
from apps.jobs.public import run_due
from tests.support.factories import UserFactory
from tests.support.receivers import Receiver
from tests.support.webhooks import ALL_READS, key_caller

from .factories import make_message, make_sms_number, share

pytestmark = pytest.mark.django_db

TEST_NUMBER = "+12025550180"
CODE_TEXT = "Your Demo code is 123456."


@pytest.fixture
def owner(db):
    return UserFactory(email="inbox-owner@example.com")


@pytest.fixture
def caller(owner):
    """A test-mode key with webhooks:manage and messages:read."""
    return key_caller(owner)[1]


def subscribe(caller, url, events=("message.received",)):
    response = caller.post("/v1/webhook_endpoints", {"url": url, "enabled_events": list(events)})
    assert response.status_code == 201, response.content
    return response.json()


def deliver_sms(caller, number, body=CODE_TEXT):
    """A message through the simulator's test helper, the same arrival as a carrier's."""
    response = caller.post("/v1/test_helpers/messages", {"number": number.id, "from": "+12025550150", "body": body})
    assert response.status_code == 201, response.content
    return response.json()


def received_events(caller):
    response = caller.get("/v1/events", {"type": "message.received"})
    assert response.status_code == 200, response.content
    return response.json()["data"]


def test_a_message_on_a_shared_number_is_one_thin_signed_event(owner, caller, receiver):
    number = make_sms_number(owner, TEST_NUMBER, livemode=False)
    endpoint = subscribe(caller, receiver.url())
    message = deliver_sms(caller, number)
    run_due()

    [request] = receiver.requests
    event = Webhook(endpoint["secret"]).verify(request.body, request.headers)
    assert event["type"] == "message.received" and event["livemode"] is False
    assert event["data"]["object"] == {
        "id": message["id"],
        "object": "message",
        "number": number.id,
        "created": message["created"],
    }
    assert b"123456" not in request.body and b"Demo code" not in request.body
    assert [e["id"] for e in received_events(caller)] == [event["id"]]


@pytest.mark.parametrize(
    "switches", [{"number": False, "account": True}, {"number": True, "account": False}], ids=["number", "account"]
)
def test_a_number_not_shared_makes_no_event(owner, caller, receiver, switches):
    number = make_sms_number(owner, TEST_NUMBER, livemode=False, shared=False)
    share(owner, number, on=switches["number"])
    sharing_update(user=owner, call_summaries=False, message_reading=switches["account"])
    subscribe(caller, receiver.url())
    deliver_sms(caller, number)
    run_due()
    assert receiver.requests == []
    assert received_events(caller) == []


def test_only_endpoints_subscribed_to_it_receive_it(owner, caller, receiver):
    number = make_sms_number(owner, TEST_NUMBER, livemode=False)
    calls_only, everything = Receiver(), Receiver()
    try:
        subscribe(caller, calls_only.url(), events=["call.ended"])
        subscribe(caller, everything.url(), events=["*"])
        _key, without_scope = key_caller(owner, scopes=[s for s in ALL_READS if s != "messages:read"])
        subscribe(without_scope, receiver.url(), events=["*"])  # "*" is only what its scopes allow
        deliver_sms(caller, number)
        run_due()
        assert calls_only.requests == [] and receiver.requests == []
        assert json.loads(everything.requests[0].body)["type"] == "message.received"
    finally:
        calls_only.close(), everything.close()


def test_another_accounts_endpoints_hear_nothing(owner, caller, receiver):
    number = make_sms_number(owner, TEST_NUMBER, livemode=False)
    stranger = UserFactory()
    subscribe(key_caller(stranger)[1], receiver.url())
    deliver_sms(caller, number)
    run_due()
    assert receiver.requests == []


def test_test_mode_and_live_mode_stay_apart(owner, caller, receiver, dns):
    test_number = make_sms_number(owner, TEST_NUMBER, livemode=False)
    live_number = make_sms_number(owner, "+442071838750", livemode=True)
    live_caller = key_caller(owner, livemode=True)[1]
    live_endpoint = subscribe(live_caller, "https://hooks.example.com/in")
    subscribe(caller, receiver.url())

    live_message = make_message(live_number, "Hello from live")
    assert [e["data"]["object"]["id"] for e in received_events(live_caller)] == [live_message.id]
    assert received_events(caller) == []
    deliveries = live_caller.get(f"/v1/webhook_endpoints/{live_endpoint['id']}/deliveries").json()["data"]
    assert len(deliveries) == 1

    test_message = deliver_sms(caller, test_number)
    run_due()
    assert [json.loads(r.body)["data"]["object"]["id"] for r in receiver.requests] == [test_message["id"]]
    assert [e["data"]["object"]["id"] for e in received_events(live_caller)] == [live_message.id]


def test_a_number_switched_off_before_the_attempt_sends_nothing(owner, caller, receiver):
    number = make_sms_number(owner, TEST_NUMBER, livemode=False)
    endpoint = subscribe(caller, receiver.url())
    deliver_sms(caller, number)
    share(owner, number, on=False)
    run_due()
    assert receiver.requests == []
    [delivery] = caller.get(f"/v1/webhook_endpoints/{endpoint['id']}/deliveries").json()["data"]
    assert delivery["status"] == "skipped"
