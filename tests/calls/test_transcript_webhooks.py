"""transcript.completed and transcript.failed (docs/design.md "Webhooks"): thin (id, object, call,
status), sent to the account's endpoints in that mode that subscribe and whose credential holds
transcripts:read, and only while the account's call-summaries switch is on (checked again at each
attempt)."""

import pytest
from standardwebhooks.webhooks import Webhook

from apps.accounts.security import sharing_update
from apps.jobs.public import run_due
from apps.telephony.simulator import TRANSCRIPTION_FAILS_TO
from tests.calls.callbacks import STAYS, Placer, frozen_clock, ready
from tests.support.factories import UserFactory
from tests.support.webhooks import key_caller

pytestmark = pytest.mark.django_db(transaction=True)

SCOPES = ("calls:place", "calls:read", "credits:read", "transcripts:read")


@pytest.fixture
def owner(db):
    user = UserFactory()
    ready(user, livemode=False)
    sharing_update(user=user, call_summaries=True, message_reading=False)
    return user


def subscribe(owner, url, events=("transcript.completed", "transcript.failed")):
    response = key_caller(owner)[1].post("/v1/webhook_endpoints", {"url": url, "enabled_events": list(events)})
    assert response.status_code == 201, response.content
    return response.json()


def transcribed(owner, clock, to=STAYS) -> tuple[dict, dict]:
    """A recorded test-mode call answered and ended, and its transcript asked for."""
    placer = Placer(owner, SCOPES, livemode=False)
    call = placer.quote_and_place(to, record=True)
    run_due(now=clock.tick(10))
    clock.tick(30)
    assert placer.end(call["id"]).json()["status"] == "completed"
    asked = placer.post(f"/v1/calls/{call['id']}/transcript")
    assert asked.status_code == 202, asked.content
    return call, asked.json()


@pytest.mark.parametrize(("to", "status"), [(STAYS, "completed"), (TRANSCRIPTION_FAILS_TO, "failed")])
def test_a_finished_transcript_is_one_thin_signed_event(owner, receiver, to, status):
    endpoint = subscribe(owner, receiver.url())
    with frozen_clock() as clock:
        call, transcript = transcribed(owner, clock, to)
        run_due(now=clock.tick(6))  # the transcript finishes and its event is published
        run_due(now=clock.tick(1))  # and delivered
    [request] = [r for r in receiver.requests if b"transcript." in r.body]
    event = Webhook(endpoint["secret"]).verify(request.body, request.headers)
    assert event["type"] == f"transcript.{status}" and event["livemode"] is False
    assert event["data"]["object"] == {
        "id": transcript["id"],
        "object": "transcript",
        "call": call["id"],
        "status": status,
    }


def test_nothing_is_sent_while_call_summaries_are_off(owner, receiver):
    subscribe(owner, receiver.url())
    with frozen_clock() as clock:
        transcribed(owner, clock)
        sharing_update(user=owner, call_summaries=False, message_reading=False)
        run_due(now=clock.tick(6))
        run_due(now=clock.tick(1))
    assert [r for r in receiver.requests if b"transcript." in r.body] == []
