"""POST /v1/calls/{id}/transcript (docs/design.md, Phase 3, "Transcript requests"): the refusals in the
design's order, the transcript's states through durable work, the price charged once at completion,
a second request answered with the existing transcript, idempotency, the tool's "ask again"."""

import uuid

import pytest

from apps.accounts.security import sharing_update
from apps.audit.models import AuditEvent
from apps.billing.models import BalanceTransaction
from apps.billing.services import ledger_append
from apps.calls.models import Transcript
from apps.calls.transcripts import transcript_apply_carrier_event
from apps.jobs.public import run_due
from apps.telephony import events as ev
from apps.telephony.simulator import TRANSCRIPTION_FAILS_TO
from apps.webhooks.models import Event
from tests.calls.callbacks import (
    STAYS,
    TRANSCRIPT_PRICE,
    TRANSCRIPT_SCOPES,
    Placer,
    ended_call,
    frozen_clock,
    ready,
    summaries_owner,
    transcribe,
)
from tests.calls.factories import CallFactory, TranscriptFactory
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory, make_api_key
from tests.support.mcp import McpClient, install_fake_tokens
from tests.support.races import postgresql_only, together

pytestmark = pytest.mark.django_db(transaction=True)

SCOPES = TRANSCRIPT_SCOPES
PRICE = TRANSCRIPT_PRICE


@pytest.fixture
def owner(db):
    return summaries_owner()


@pytest.fixture
def placer(owner):
    return Placer(owner, SCOPES)


def test_requested_then_completed_by_the_simulator_and_charged_once(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        before = placer.balance()["amount"]
        asked = transcribe(placer, call["id"])
        assert asked.status_code == 202, asked.content
        body = asked.json()
        assert body["object"] == "transcript" and body["call"] == call["id"]
        assert body["status"] == "queued" and body["amount"] is None and body["completed_at"] is None
        assert placer.balance()["amount"] == before  # nothing charged while it is prepared

        run_due(now=clock.tick(6))  # the simulator completes it in 5 s
        read = placer.get(f"/v1/calls/{call['id']}", {"expand[]": "transcript"}).json()["transcript"]
    assert read["id"] == body["id"] and read["status"] == "completed"
    assert read["amount"] == PRICE and read["currency"] == "usd" and read["completed_at"] is not None
    assert read["summary"] and read["reference_numbers"] and read["language"] == "en"
    charges = BalanceTransaction.objects.filter(type="transcript", source=body["id"])
    assert [c.amount for c in charges] == [-PRICE]
    assert placer.balance()["amount"] == before - PRICE


def test_the_completion_applied_twice_charges_once(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        transcript_id = transcribe(placer, call["id"]).json()["id"]
        event = ev.CarrierEvent(ev.TRANSCRIPTION, ev.TRANSCRIPTION_COMPLETED, transcript_id, clock.tick(6), True, {})
        assert transcript_apply_carrier_event(event) is not None
        assert transcript_apply_carrier_event(event) is None
        run_due(now=clock.tick(10))  # the simulator's own completion comes too: a third time
    assert BalanceTransaction.objects.filter(type="transcript", source=transcript_id).count() == 1


def test_a_second_request_gets_the_existing_transcript_and_no_new_charge(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        first = transcribe(placer, call["id"]).json()
        run_due(now=clock.tick(6))
        again = transcribe(placer, call["id"])
        assert again.status_code == 200 and again.json()["id"] == first["id"]
        assert again.json()["status"] == "completed"
        run_due(now=clock.tick(60))
    assert Transcript.objects.filter(call_id=call["id"]).count() == 1
    assert BalanceTransaction.objects.filter(type="transcript").count() == 1


def test_the_same_idempotency_key_replays_the_first_answer(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        key = str(uuid.uuid4())
        first = transcribe(placer, call["id"], key=key)
        replay = transcribe(placer, call["id"], key=key)
    assert first.status_code == replay.status_code == 202
    assert replay["Idempotent-Replayed"] == "true" and replay.json() == first.json()


def test_idempotency_key_is_required(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
    response = transcribe(placer, call["id"], key=None)
    assert_error(response, 400, "idempotency_key_required", param="Idempotency-Key")
    assert not Transcript.objects.exists()


def test_a_failed_transcript_costs_nothing(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock, to=TRANSCRIPTION_FAILS_TO)
        transcript_id = transcribe(placer, call["id"]).json()["id"]
        run_due(now=clock.tick(6))
    transcript = Transcript.objects.get(pk=transcript_id)
    assert (transcript.status, transcript.failure_reason, transcript.amount) == ("failed", "audio_unavailable", 0)
    assert not BalanceTransaction.objects.filter(type="transcript").exists()


# --- the refusals, in the design's order ------------------------------------------------------------


def test_no_such_call_is_404(owner, placer):
    for call_id in ("call_" + "0" * 24, "nonsense", "call_" + "x" * 80):
        assert_error(transcribe(placer, call_id), 404, "not_found", param="call_id")


def test_another_accounts_call_and_the_other_modes_are_404(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
    stranger = UserFactory()
    ready(stranger)
    sharing_update(user=stranger, call_summaries=True, message_reading=False)
    assert_error(transcribe(Placer(stranger, SCOPES), call["id"]), 404, "not_found", param="call_id")
    ready(owner, livemode=False, rates_too=False)
    assert_error(transcribe(Placer(owner, SCOPES, livemode=False), call["id"]), 404, "not_found", param="call_id")
    assert not Transcript.objects.exists()


def test_call_summaries_off_is_403_before_anything_about_the_call(owner, placer):
    with frozen_clock() as clock:
        live = placer.quote_and_place(STAYS, record=True)  # still live: 409 would come later
        sharing_update(user=owner, call_summaries=False, message_reading=False)
        assert_error(transcribe(placer, live["id"]), 403, "forbidden")
        placer.end(live["id"])
        clock.tick(1)
    assert not Transcript.objects.exists()


def test_a_live_call_is_409_call_not_ended_before_recording_is_checked(owner, placer):
    with frozen_clock():
        live = placer.quote_and_place(STAYS, record=False)
        assert_error(transcribe(placer, live["id"]), 409, "call_not_ended")
        placer.end(live["id"])


def test_an_unrecorded_call_is_409_call_not_recorded(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock, record=False)
        assert_error(transcribe(placer, call["id"]), 409, "call_not_recorded")
    assert not Transcript.objects.exists()


def test_an_available_balance_below_the_price_is_402(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        left = placer.balance()["amount"]
        ledger_append(
            user=owner, livemode=True, amount=-(left - PRICE + 1), type="adjustment", source=None, description="Drain"
        )
        assert_error(transcribe(placer, call["id"]), 402, "insufficient_credits")
    assert not Transcript.objects.exists()


@pytest.mark.parametrize("body", [{"language": "x" * 17}, {"language": 5}, {"language": "en_US"}, {"speed": "fast"}])
def test_a_malformed_body_is_400_and_changes_nothing(owner, placer, body):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        response = transcribe(placer, call["id"], body)
    assert_error(response, 400, "invalid_request", param=next(iter(body)))
    assert not Transcript.objects.exists()


def test_transcripts_read_is_the_scope(owner):
    _key, secret = make_api_key(owner, scopes=["calls:place", "calls:read"])
    placer = Placer(owner, secret=secret)
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        response = transcribe(placer, call["id"], {"language": "en"})
    assert_error(response, 403, "insufficient_scope")
    assert 'scope="transcripts:read"' in response["WWW-Authenticate"]


# --- what it leaves behind: the audit row, the webhook events, the tool's answer while it waits ------


def test_a_request_is_an_audit_event_and_the_completion_a_webhook_event(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        transcript_id = transcribe(placer, call["id"]).json()["id"]
        run_due(now=clock.tick(6))
    audit = AuditEvent.objects.get(user=owner, event_type="transcript.requested")
    assert audit.data["call"] == call["id"] and audit.data["transcript"] == transcript_id
    event = Event.objects.get(user_id=owner.pk, type="transcript.completed")
    assert event.data == {"id": transcript_id, "object": "transcript", "call": call["id"], "status": "completed"}


def test_the_summary_tool_says_to_ask_again_while_it_is_prepared(owner, placer, settings):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        transcribe(placer, call["id"])
        mcp = McpClient(install_fake_tokens(settings).issue(owner, scopes=frozenset({"transcripts:read"})))
        asked = {"name": "svc_get_call_summary", "arguments": {"call_id": call["id"]}}
        waiting = mcp.request("tools/call", asked).json()["result"]
        assert waiting["isError"] is True and "Ask again in a minute" in waiting["content"][0]["text"]
        run_due(now=clock.tick(6))
        done = mcp.request("tools/call", asked).json()["result"]
    assert done["isError"] is False and done["structuredContent"]["summary"]


# --- two requests at once -----------------------------------------------------------------------------


@postgresql_only
def test_parallel_requests_make_one_transcript_and_charge_once(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        responses = together(lambda _i: transcribe(Placer(owner, secret=placer.secret), call["id"]), 2)
        statuses = [r.status_code for r in responses]
        assert sorted(statuses) == [200, 202], statuses
        assert Transcript.objects.filter(call_id=call["id"]).count() == 1
        run_due(now=clock.tick(6))
        run_due(now=clock.tick(60))
    assert BalanceTransaction.objects.filter(type="transcript").count() == 1


# --- the price, the states between, what a call without audio gets ------------------------------------


def test_the_price_is_rounded_up_once_from_the_billed_duration(owner, placer, settings):
    # 150 s of talk billed by the minute is 180 s; 0.045 a minute for 3 minutes is 13.5 cents: 14,
    # where rounding each minute would have made it 15.
    settings.TRANSCRIPT_PER_MINUTE = "0.045"
    with frozen_clock() as clock:
        call = ended_call(placer, clock, talk=150)
        assert call["billed_duration"] == 180
        before = placer.balance()["amount"]
        transcript_id = transcribe(placer, call["id"]).json()["id"]
        run_due(now=clock.tick(6))
        read = placer.get(f"/v1/calls/{call['id']}", {"expand[]": "transcript"}).json()["transcript"]
    assert (read["status"], read["amount"], read["currency"]) == ("completed", 14, "usd")
    [charge] = BalanceTransaction.objects.filter(type="transcript", source=transcript_id)
    assert (charge.amount, charge.currency, charge.livemode) == (-14, "usd", True)
    assert placer.balance()["amount"] == before - 14


def test_it_is_processing_between_queued_and_completed(owner, placer, settings):
    mcp = McpClient(install_fake_tokens(settings).issue(owner, scopes=frozenset({"transcripts:read"})))
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        asked = transcribe(placer, call["id"]).json()
        statuses = [asked["status"]]
        for seconds in (2, 4):  # started at +1 s, completed at +5 s
            run_due(now=clock.tick(seconds))
            read = placer.get(f"/v1/calls/{call['id']}", {"expand[]": "transcript"}).json()["transcript"]
            statuses.append(read["status"])
            if read["status"] == "processing":
                assert read["amount"] is None and read["completed_at"] is None
                answer = mcp.request(
                    "tools/call", {"name": "svc_get_call_summary", "arguments": {"call_id": call["id"]}}
                ).json()["result"]
                assert answer["isError"] is True and "Ask again in a minute" in answer["content"][0]["text"]
    assert statuses == ["queued", "processing", "completed"]


def test_a_call_nobody_answered_fails_too_short_and_costs_nothing(owner, placer):
    with frozen_clock() as clock:
        call = placer.quote_and_place("+12025550101", record=True)  # busy: recorded, never answered
        run_due(now=clock.tick(10))
        assert placer.get(f"/v1/calls/{call['id']}").json()["status"] == "busy"
        asked = transcribe(placer, call["id"])
        assert asked.status_code == 202, asked.content
        run_due(now=clock.tick(6))
        read = placer.get(f"/v1/calls/{call['id']}", {"expand[]": "transcript"}).json()["transcript"]
    assert (read["status"], read["failure_reason"], read["amount"]) == ("failed", "too_short", 0)
    assert read["completed_at"] is not None and read["summary"] == ""
    assert not BalanceTransaction.objects.filter(type="transcript").exists()


def test_the_failed_one_answers_200_when_asked_again_and_is_not_retried(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock, to=TRANSCRIPTION_FAILS_TO)
        first = transcribe(placer, call["id"]).json()
        run_due(now=clock.tick(6))
        again = transcribe(placer, call["id"])
    assert again.status_code == 200
    assert (again.json()["id"], again.json()["status"]) == (first["id"], "failed")


def test_a_transcript_made_without_a_request_answers_200_completed_and_charges_nothing(owner, placer):
    call = CallFactory(user=owner, record=True)
    made = TranscriptFactory(call=call)
    before = placer.balance()["amount"]
    response = transcribe(placer, call.id)
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["id"], body["status"], body["amount"], body["summary"]) == (made.id, "completed", None, made.summary)
    assert placer.balance()["amount"] == before
    assert not BalanceTransaction.objects.filter(type="transcript").exists()


def test_what_a_live_call_holds_counts_against_the_price(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        # A second callback holds what the rest of the balance buys: less than a transcript is left.
        other = placer.quote_and_place(STAYS)
        balance = placer.balance()
        assert balance["amount"] >= PRICE > balance["available_amount"], balance
        assert_error(transcribe(placer, call["id"]), 402, "insufficient_credits")
        placer.end(other["id"])  # the hold is released: now it is affordable
        assert transcribe(placer, call["id"]).status_code == 202
    assert Transcript.objects.filter(call_id=call["id"]).count() == 1


def test_test_mode_charges_the_test_balance_only(owner):
    ready(owner, livemode=False, rates_too=False)
    live, test = Placer(owner, SCOPES), Placer(owner, SCOPES, livemode=False)
    with frozen_clock() as clock:
        call = ended_call(test, clock)
        live_before, test_before = live.balance()["amount"], test.balance()["amount"]
        body = transcribe(test, call["id"]).json()
        run_due(now=clock.tick(6))
        assert_error(transcribe(live, call["id"]), 404, "not_found", param="call_id")
    assert body["livemode"] is False
    assert (live.balance()["amount"], test.balance()["amount"]) == (live_before, test_before - PRICE)
    [charge] = BalanceTransaction.objects.filter(type="transcript")
    assert charge.livemode is False and charge.source == body["id"]


# --- who may ask: the scope matrix, an app's token, the budget ---------------------------------------


@pytest.mark.parametrize(
    ("scopes", "allowed"),
    [
        (["transcripts:read"], True),
        (["calls:read", "transcripts:read"], True),
        (["calls:read"], False),
        (["calls:place", "calls:read", "contacts:read", "credits:read"], False),
    ],
)
def test_the_scope_matrix(owner, placer, scopes, allowed):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
    _key, secret = make_api_key(owner, scopes=scopes)
    response = transcribe(Placer(owner, secret=secret), call["id"])
    if allowed:
        assert response.status_code == 202, response.content
    else:
        assert_error(response, 403, "insufficient_scope")
        assert 'scope="transcripts:read"' in response["WWW-Authenticate"]
        assert not Transcript.objects.exists()


def test_an_apps_token_asks_and_the_audit_event_names_the_app(owner, placer, settings):
    tokens = install_fake_tokens(settings)
    resource = f"{settings.BASE_URL}/v1"
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        without = tokens.issue(owner, scopes=frozenset({"calls:read"}), resource=resource)
        assert_error(transcribe(Placer(owner, secret=without), call["id"]), 403, "insufficient_scope")
        token = tokens.issue(owner, scopes=frozenset({"transcripts:read"}), resource=resource)
        asked = transcribe(Placer(owner, secret=token), call["id"])
        assert asked.status_code == 202, asked.content
    audit = AuditEvent.objects.get(user=owner, event_type="transcript.requested")
    assert audit.client_id == "dcr_test" and not audit.key_id
    assert (audit.data["call"], audit.data["transcript"]) == (call["id"], asked.json()["id"])
    assert audit.data["summary"] == "asked for the transcript of a call to +1 202-555-0104"


def test_five_requests_a_minute(owner, placer):
    for _ in range(5):
        assert_error(transcribe(placer, "call_" + "0" * 24), 404, "not_found", param="call_id")
    assert_error(transcribe(placer, "call_" + "0" * 24), 429, "rate_limited", type_="rate_limit_error")


def test_the_docs_page_says_what_the_simulator_does_with_transcripts(client):
    page = " ".join(client.get("/docs/calls").content.decode().split())
    assert "<code>processing</code> after 1 s and completes in 5 s" in page
    assert "+1 202-555-0106: <code>failed</code>, <code>audio_unavailable</code>" in page
    assert "a call nobody answered: <code>failed</code>, <code>too_short</code>" in page


def test_without_a_worker_a_read_applies_what_is_due(owner, placer, settings):
    # The quick start runs no worker: reading a transcript being prepared applies its due events,
    # as a read of a live simulated call does (docs/design.md, "The carrier boundary").
    mcp = McpClient(install_fake_tokens(settings).issue(owner, scopes=frozenset({"transcripts:read"})))
    asked = {"name": "svc_get_call_summary", "arguments": {"call_id": None}}
    with frozen_clock() as clock:
        calls = [ended_call(placer, clock) for _ in range(3)]
        for call in calls:
            assert transcribe(placer, call["id"]).status_code == 202
        clock.tick(6)
        expanded = placer.get(f"/v1/calls/{calls[0]['id']}", {"expand[]": "transcript"}).json()["transcript"]
        again = transcribe(placer, calls[1]["id"])
        asked["arguments"]["call_id"] = calls[2]["id"]
        summary = mcp.request("tools/call", asked).json()["result"]
    assert expanded["status"] == "completed" and expanded["amount"] == PRICE
    assert again.status_code == 200 and again.json()["status"] == "completed"
    assert summary["isError"] is False and summary["structuredContent"]["summary"]
    assert BalanceTransaction.objects.filter(type="transcript").count() == 3
