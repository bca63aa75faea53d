"""POST /v1/calls/{id}/transcript tried as an attacker with an ordinary account (docs/design.md,
"Transcript requests"; docs/security.md "Transcript requests, tried as an attacker"): other
accounts' and the other mode's calls, calls that are not recorded, a failed transcript asked
again, the switch turned off midway, forged completions, hostile languages, a reused
Idempotency-Key, prices of zero and balances at the edge, and where the summary may not go.
Black-box: every request goes through /v1, /mcp or /carrier; time moves by the test's clock."""

import json
import logging
import uuid

import pytest
from django.test import Client

from apps.accounts.security import sharing_update
from apps.audit.models import AuditEvent
from apps.billing.models import BalanceTransaction
from apps.billing.services import ledger_append
from apps.calls.models import Transcript
from apps.jobs.public import run_due
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
from tests.support.factories import UserFactory
from tests.support.mcp import McpClient, install_fake_tokens

pytestmark = pytest.mark.django_db(transaction=True)

SCOPES = TRANSCRIPT_SCOPES
PRICE = TRANSCRIPT_PRICE


def transcript_charges():
    return list(BalanceTransaction.objects.filter(type="transcript").values_list("amount", flat=True))


def drain_to(owner, placer, left: int, *, livemode=True):
    """Spend the balance down to ``left`` minor units."""
    amount = placer.balance()["amount"]
    if amount != left:
        ledger_append(
            user=owner, livemode=livemode, amount=left - amount, type="adjustment", source=None, description="Drain"
        )
    assert placer.balance()["amount"] == left


def summary_tool(owner, settings, call_id):
    mcp = McpClient(install_fake_tokens(settings).issue(owner, scopes=frozenset({"transcripts:read"})))
    asked = {"name": "svc_get_call_summary", "arguments": {"call_id": call_id}}
    return mcp.request("tools/call", asked).json()["result"]


@pytest.fixture
def owner(db):
    return summaries_owner()


@pytest.fixture
def placer(owner):
    return Placer(owner, SCOPES)


@pytest.fixture
def placer_in_test_mode(owner):
    """A Placer of the owner's test mode, the account ready to call there."""
    ready(owner, livemode=False, rates_too=False)
    return Placer(owner, SCOPES, livemode=False)


@pytest.fixture
def stranger(db):
    user = UserFactory()
    ready(user)
    sharing_update(user=user, call_summaries=True, message_reading=False)
    return user


# --- whose call, which mode ---------------------------------------------------------------------------


def test_another_accounts_call_is_404_and_creates_and_charges_nothing(owner, placer, stranger):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        theirs = Placer(stranger, SCOPES)
        before = theirs.balance()["amount"]
        for body in (None, {"language": "en"}):
            assert_error(transcribe(theirs, call["id"], body), 404, "not_found", param="call_id")
        # Their refusal says nothing of the call: the same answer as an id that never existed.
        never = transcribe(theirs, "call_" + "0" * 24).json()["error"]
        assert transcribe(theirs, call["id"]).json()["error"]["message"] == never["message"]
        run_due(now=clock.tick(60))
    assert not Transcript.objects.exists() and transcript_charges() == []
    assert theirs.balance()["amount"] == before


def test_a_key_of_one_mode_never_reaches_a_call_of_the_other(owner, placer, placer_in_test_mode):
    with frozen_clock() as clock:
        live_call = ended_call(placer, clock)
        test_call = ended_call(placer_in_test_mode, clock)
        assert_error(transcribe(placer_in_test_mode, live_call["id"]), 404, "not_found", param="call_id")
        assert_error(transcribe(placer, test_call["id"]), 404, "not_found", param="call_id")
        run_due(now=clock.tick(60))
    assert not Transcript.objects.exists() and transcript_charges() == []


# --- which calls may be transcribed ----------------------------------------------------------------


def test_an_inbound_call_is_not_recorded(owner, placer):
    inbound = CallFactory(user=owner, direction="inbound", from_number="+12025550111", to_number="+14155550100")
    assert_error(transcribe(placer, inbound.id), 409, "call_not_recorded")
    assert not Transcript.objects.exists() and transcript_charges() == []


def test_an_inbound_call_with_an_earlier_transcript_gets_it_back_uncharged(owner, placer):
    inbound = CallFactory(user=owner, direction="inbound", from_number="+12025550111", to_number="+14155550100")
    earlier = TranscriptFactory(call=inbound)
    again = transcribe(placer, inbound.id)
    assert again.status_code == 200 and again.json()["id"] == earlier.id
    assert again.json()["status"] == "completed" and again.json()["amount"] is None
    assert Transcript.objects.count() == 1 and transcript_charges() == []


def test_a_failed_transcript_asked_again_is_the_same_failed_one_and_costs_nothing(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock, to=TRANSCRIPTION_FAILS_TO)
        first = transcribe(placer, call["id"]).json()
        run_due(now=clock.tick(6))
        before = placer.balance()["amount"]
        again = transcribe(placer, call["id"])
        run_due(now=clock.tick(60))
    assert again.status_code == 200 and again.json()["id"] == first["id"]
    assert again.json()["status"] == "failed" and again.json()["amount"] == 0
    assert again.json()["failure_reason"] == "audio_unavailable"
    assert Transcript.objects.count() == 1 and transcript_charges() == []
    assert placer.balance()["amount"] == before


# --- the switch turned off after the request -----------------------------------------------------------


def test_the_switch_turned_off_after_the_request_hides_the_completed_summary(owner, placer, settings):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        transcript_id = transcribe(placer, call["id"]).json()["id"]
        sharing_update(user=owner, call_summaries=False, message_reading=False)
        run_due(now=clock.tick(6))
        summary = Transcript.objects.get(pk=transcript_id).summary
        assert summary  # it completed meanwhile

        tool = summary_tool(owner, settings, call["id"])
        assert tool["isError"] is True and summary not in json.dumps(tool)
        expanded = placer.get(f"/v1/calls/{call['id']}", {"expand[]": "transcript"})
        assert_error(expanded, 403, "forbidden", param="expand")
        plain = placer.get(f"/v1/calls/{call['id']}")
        assert plain.status_code == 200 and plain.json()["transcript"] == transcript_id
        listed = placer.get("/v1/calls", {"expand[]": "transcript"})
        assert_error(listed, 403, "forbidden", param="expand")
        # Asking again refuses before saying anything of the transcript.
        asked = transcribe(placer, call["id"])
        assert_error(asked, 403, "forbidden")
        assert transcript_id not in asked.content.decode()
        run_due(now=clock.tick(60))
    for response in (expanded, plain, listed, asked):
        assert summary not in response.content.decode()
    # The stored event is thin: the summary never reaches an endpoint, whatever the switch does later.
    [event] = Event.objects.filter(type__startswith="transcript.")
    assert event.data == {"id": transcript_id, "object": "transcript", "call": call["id"], "status": "completed"}


# --- forging a completion ------------------------------------------------------------------------------


def test_no_http_path_completes_a_transcript(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        transcript_id = transcribe(placer, call["id"]).json()["id"]
        forged = {
            "family": "transcription",
            "kind": "transcription_completed",
            "subject": transcript_id,
            "livemode": True,
            "detail": {"summary": "forged", "language": "en"},
        }
        outsider = Client()
        answers = [
            outsider.post(path, data=json.dumps(forged), content_type="application/json")
            for path in (
                "/carrier/simulated/transcription",
                "/carrier/simulated/transcript",
                "/carrier/simulated/call",
                "/carrier/twilio/transcription",
                "/carrier/transcription/completed",
            )
        ]
        # The account's own key reaches no route that completes one either.
        answers += [
            placer.post(f"/v1/calls/{call['id']}/transcript/complete", forged),
            placer.post(f"/v1/transcripts/{transcript_id}", forged),
            placer.post("/v1/test_helpers/transcripts", forged),
        ]
        assert all(a.status_code in (403, 404, 405) for a in answers), [a.status_code for a in answers]
        assert Transcript.objects.get(pk=transcript_id).status == "queued" and transcript_charges() == []
        run_due(now=clock.tick(6))  # only the carrier's own event, as durable work, completes it
    transcript = Transcript.objects.get(pk=transcript_id)
    assert transcript.status == "completed" and transcript.summary != "forged"
    assert transcript_charges() == [-PRICE]


# --- hostile input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "language",
    [
        "x" * 100_000,
        "en-" + "a" * 14,
        "",
        " en",
        "en\n",
        "en\u202e",
        "en-US\x00",
        "ｅｎ",
        "en--US",
        "../../etc",
        None,
        ["en"],
        {"tag": "en"},
        True,
    ],
)
def test_a_huge_or_malformed_language_is_400_and_changes_nothing(owner, placer, language):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        response = transcribe(placer, call["id"], {"language": language})
    assert response.status_code == 400, response.content
    assert response.json()["error"]["param"] == "language"
    assert len(response.content) < 1000  # the refusal never quotes it back
    assert not Transcript.objects.exists()


def test_the_longest_tag_allowed_is_stored_whole(owner, placer):
    tag = "zh-Hant-TW-abcde"  # 16 characters
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        asked = transcribe(placer, call["id"], {"language": tag})
        assert asked.status_code == 202, asked.content
        run_due(now=clock.tick(6))
    assert Transcript.objects.get(pk=asked.json()["id"]).language == tag


def test_an_idempotency_key_reused_for_another_call_is_409_and_makes_nothing(owner, placer):
    with frozen_clock() as clock:
        first = ended_call(placer, clock)
        second = ended_call(placer, clock)
        key = str(uuid.uuid4())
        assert transcribe(placer, first["id"], key=key).status_code == 202
        reused = transcribe(placer, second["id"], key=key)
        assert_error(reused, 409, "idempotency_key_reused", param="Idempotency-Key")
        # The same call with another body is another request too.
        assert_error(
            transcribe(placer, first["id"], {"language": "de"}, key=key),
            409,
            "idempotency_key_reused",
            param="Idempotency-Key",
        )
    assert list(Transcript.objects.values_list("call_id", flat=True)) == [first["id"]]


# --- the price and the balance -------------------------------------------------------------------------


def test_a_call_of_zero_billed_seconds_writes_no_charge_row(owner, placer):
    with frozen_clock() as clock:
        call = placer.quote_and_place(STAYS, record=True)
        ended = placer.end(call["id"])  # before anyone answered: nothing billed
        assert ended.json()["status"] == "canceled" and ended.json()["billed_duration"] == 0
        drain_to(owner, placer, 0)
        asked = transcribe(placer, call["id"])
        assert asked.status_code == 202, asked.content
        run_due(now=clock.tick(6))
    transcript = Transcript.objects.get(pk=asked.json()["id"])
    assert transcript.amount == 0 and transcript_charges() == []
    assert placer.balance()["amount"] == 0


def test_a_balance_of_exactly_the_price_is_enough(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        drain_to(owner, placer, PRICE)
        asked = transcribe(placer, call["id"])
        assert asked.status_code == 202, asked.content
        run_due(now=clock.tick(6))
    assert transcript_charges() == [-PRICE] and placer.balance()["amount"] == 0


def test_a_balance_one_below_the_price_is_402(owner, placer):
    with frozen_clock() as clock:
        call = ended_call(placer, clock)
        drain_to(owner, placer, PRICE - 1)
        refused = transcribe(placer, call["id"])
        run_due(now=clock.tick(60))
    assert_error(refused, 402, "insufficient_credits")
    assert not Transcript.objects.exists() and transcript_charges() == []
    assert placer.balance()["amount"] == PRICE - 1


def test_transcripts_waiting_to_be_charged_count_against_the_balance(owner, placer):
    # No hold is taken, so without counting the ones queued, a balance of one price bought as
    # many transcripts as the account had recorded calls, and went below zero by the rest.
    with frozen_clock() as clock:
        calls = [ended_call(placer, clock) for _ in range(3)]
        drain_to(owner, placer, PRICE)
        answers = [transcribe(placer, call["id"]) for call in calls]
        assert answers[0].status_code == 202, answers[0].content
        for refused in answers[1:]:
            assert_error(refused, 402, "insufficient_credits")
        run_due(now=clock.tick(6))
        # Once the first is charged, the balance is 0 and the next is still refused.
        assert_error(transcribe(placer, calls[1]["id"]), 402, "insufficient_credits")
    assert transcript_charges() == [-PRICE]
    assert placer.balance()["amount"] == 0


def test_a_failed_transcript_no_longer_counts_against_the_balance(owner, placer):
    with frozen_clock() as clock:
        failing = ended_call(placer, clock, to=TRANSCRIPTION_FAILS_TO)
        other = ended_call(placer, clock)
        drain_to(owner, placer, PRICE)
        assert transcribe(placer, failing["id"]).status_code == 202
        assert_error(transcribe(placer, other["id"]), 402, "insufficient_credits")
        run_due(now=clock.tick(6))  # it fails and costs nothing: the price is free again
        asked = transcribe(placer, other["id"])
        assert asked.status_code == 202, asked.content
        run_due(now=clock.tick(6))
    assert transcript_charges() == [-PRICE] and placer.balance()["amount"] == 0


def test_the_other_modes_waiting_transcripts_do_not_count(owner, placer, placer_in_test_mode):
    with frozen_clock() as clock:
        test_call = ended_call(placer_in_test_mode, clock)
        live_call = ended_call(placer, clock)
        assert transcribe(placer_in_test_mode, test_call["id"]).status_code == 202
        drain_to(owner, placer, PRICE)
        assert transcribe(placer, live_call["id"]).status_code == 202


# --- where the summary may not go ----------------------------------------------------------------------


@pytest.mark.parametrize("to", [STAYS, TRANSCRIPTION_FAILS_TO])
def test_the_summary_reaches_no_log_audit_row_event_charge_or_refusal(owner, placer, settings, caplog, to):
    caplog.set_level(logging.DEBUG)
    with frozen_clock() as clock:
        call = ended_call(placer, clock, to=to)
        transcript_id = transcribe(placer, call["id"]).json()["id"]
        run_due(now=clock.tick(6))
        run_due(now=clock.tick(60))
        transcript = Transcript.objects.get(pk=transcript_id)
        again = transcribe(placer, call["id"])
        sharing_update(user=owner, call_summaries=False, message_reading=False)
        refusals = [
            transcribe(placer, call["id"]),
            placer.get(f"/v1/calls/{call['id']}", {"expand[]": "transcript"}),
        ]
        tool = summary_tool(owner, settings, call["id"])
    secrets = [transcript.summary, *transcript.action_items, *transcript.reference_numbers]
    if to == STAYS:
        assert all(secrets) and len(secrets) >= 2  # there is something to leak
        assert again.json()["summary"] == transcript.summary  # the owner's own read has it
    texts = {
        "logs": caplog.text,
        "audit": json.dumps(list(AuditEvent.objects.filter(user=owner).values()), default=str),
        "events": json.dumps(list(Event.objects.values_list("data", flat=True)), default=str),
        "charges": json.dumps(list(BalanceTransaction.objects.values("description", "source")), default=str),
        "refusals": "".join(r.content.decode() for r in refusals) + json.dumps(tool),
    }
    for secret in filter(None, secrets):
        for where, text in texts.items():
            assert secret not in text, (where, secret)
    audit = AuditEvent.objects.get(user=owner, event_type="transcript.requested")
    # Ids, the mode and the owner's sentence naming the number called: nothing said in the call.
    assert set(audit.data) == {"call", "transcript", "livemode", "summary"}
    assert (audit.data["call"], audit.data["transcript"], audit.data["livemode"]) == (call["id"], transcript_id, True)
    assert audit.data["summary"] == f"asked for the transcript of a call to +1 202-555-{to[-4:]}"
    for event in Event.objects.filter(type__startswith="transcript."):
        assert set(event.data) == {"id", "object", "call", "status"}
