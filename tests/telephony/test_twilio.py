"""The Twilio adapter at its edges (docs/operations.md, "A real carrier"): what it asks Twilio, how it
checks and applies Twilio's callbacks however they travel, how Twilio's refusals reach the user, and
that test mode never leaves the simulator. Twilio is the local fake (tests/support/twilio_fake)."""

import logging
import xml.etree.ElementTree as ET
from urllib.parse import urlencode

import pytest
from django.test import Client

from apps.billing.models import BalanceTransaction, Hold
from apps.calls.models import Call, Quote
from apps.contacts.services import PhoneInput, contact_create
from apps.messages.models import Message
from tests.calls.callbacks import YOUR_PHONE, Placer, ready
from tests.messages.factories import make_sms_number
from tests.support.twilio_fake import path_of
from tests.support.twilio_line import TwilioLine

pytestmark = pytest.mark.django_db

ANSWERS, STAYS, DECLINES, DOES_NOT_ANSWER = "+12025550100", "+12025550104", "+12025550192", "+12025550190"


@pytest.fixture
def line(twilio, clock):
    return TwilioLine(clock, twilio)


def read(placer, call):
    return placer.get(f"/v1/calls/{call['id']}").json()


def twiml(text: str) -> ET.Element:
    return ET.fromstring(text.encode())


def test_your_phone_is_asked_to_press_1_for_the_contact_then_the_callee_sees_the_quotes_caller_id(user, line):
    ready(user)
    contact = contact_create(user=user, livemode=True, name="Ana Lopez", phone_numbers=[PhoneInput(ANSWERS)])
    placer = Placer(user)
    quote = placer.quote(contact.id, record=True).json()
    call = placer.place(quote["id"]).json()
    placed = line.fake.parent_calls()[0]
    assert (placed["to"], placed["from"]) == (YOUR_PHONE, quote["caller_id"])
    prompt = twiml(line.fake.twiml[0]).find("Gather")
    assert prompt.get("numDigits") == "1" and prompt.get("timeout") == "15"
    assert prompt.find("Say").text == "Press 1 to connect your call to Ana Lopez."
    line.wait(6)
    dial = twiml(line.fake.twiml[1]).find("Dial")
    assert dial.get("callerId") == quote["caller_id"]
    assert dial.get("timeLimit") == str(quote["max_duration"]) == str(call["max_duration"])
    assert dial.get("record") == "record-from-answer"
    assert dial.find("Number").text == ANSWERS


def test_without_record_nothing_is_recorded_and_the_prompt_reads_the_number(user, line):
    ready(user)
    Placer(user).quote_and_place(ANSWERS)
    assert "Press 1 to connect your call to +1 202-555-0100." in line.fake.twiml[0]
    line.wait(6)
    assert twiml(line.fake.twiml[1]).find("Dial").get("record") is None


@pytest.mark.parametrize("delivery", ["duplicated", "retried", "out_of_order"])
def test_callbacks_retried_duplicated_or_out_of_order_are_applied_once(user, line, delivery):
    line.fake.delivery = delivery
    ready(user)
    placer = Placer(user)
    call = placer.quote_and_place(ANSWERS)
    line.wait(60)
    ended = read(placer, call)
    assert (ended["status"], ended["end_reason"], ended["duration"]) == ("completed", "callee_hung_up", 30)
    assert list(
        BalanceTransaction.objects.filter(user=user, type="call", source=call["id"]).values_list("amount", flat=True)
    ) == [-6]
    if delivery != "out_of_order":
        sent = [params["CallStatus"] for kind, url, params in line.fake.sent if "/status" in url and kind == "sent"]
        assert sent.count("completed") == 2  # Twilio sent your leg's end twice


@pytest.mark.parametrize(
    "phone, status, reason",
    [(DECLINES, "canceled", "you_declined"), (DOES_NOT_ANSWER, "no_answer", "you_did_not_answer")],
)
def test_a_call_whose_callbacks_were_lost_ends_by_a_status_fetch(user, line, phone, status, reason):
    line.fake.delivery = "lost"
    ready(user, phone=phone)
    placer = Placer(user)
    call = placer.quote_and_place(ANSWERS)
    line.wait(60)
    assert read(placer, call)["status"] == "ringing_you"  # nothing arrived
    line.wait(70)  # the worker's check, two minutes after placing
    ended = read(placer, call)
    assert (ended["status"], ended["end_reason"]) == (status, reason)
    assert placer.balance()["held_amount"] == 0


def test_a_connected_call_whose_status_callbacks_were_lost_is_still_billed_from_the_answer(user, line):
    line.fake.delivery = "lost"  # the gather and dial actions still arrive: Twilio waits on them
    ready(user)
    placer = Placer(user)
    call = placer.quote_and_place(ANSWERS)
    line.wait(60)
    ended = read(placer, call)
    assert (ended["status"], ended["end_reason"], ended["duration"], ended["amount"]) == (
        "completed",
        "callee_hung_up",
        30,
        6,
    )


def test_a_connected_call_whose_every_news_after_the_answer_was_lost_is_billed_from_twilios_records(user, line):
    line.fake.delivery = "lost"
    line.fake.dial_action_unreachable = True
    ready(user)
    placer = Placer(user)
    call = placer.quote_and_place(ANSWERS)
    line.wait(60)
    assert read(placer, call)["status"] == "ringing"  # you pressed 1; nothing after arrived
    line.wait(70)  # the worker's check fetches your leg and the callee's
    ended = read(placer, call)
    assert (ended["status"], ended["end_reason"], ended["duration"], ended["amount"]) == (
        "completed",
        "callee_hung_up",
        30,
        6,
    )


def test_a_transcript_twilio_fails_costs_nothing(user, line):
    from apps.accounts.security import sharing_update
    from tests.calls.callbacks import TRANSCRIPT_SCOPES, transcribe

    ready(user)
    sharing_update(user=user, call_summaries=True, message_reading=False)
    placer = Placer(user, scopes=TRANSCRIPT_SCOPES)
    call = placer.quote_and_place("+12025550106", record=True)  # Twilio cannot transcribe its recording
    line.wait(45)
    assert transcribe(placer, call["id"]).status_code == 202
    line.wait(30)
    transcript = transcribe(placer, call["id"]).json()
    assert (transcript["status"], transcript["failure_reason"], transcript["amount"]) == (
        "failed",
        "provider_error",
        0,
    )
    assert not BalanceTransaction.objects.filter(type="transcript").exists()


def test_you_hang_up_before_pressing_1(user, line):
    line.fake.your_phone_hangs_up_at_prompt = True
    ready(user)
    placer = Placer(user)
    call = placer.quote_and_place(ANSWERS)
    line.wait(20)
    ended = read(placer, call)
    assert (ended["status"], ended["end_reason"]) == ("canceled", "you_did_not_press_1")
    assert not [c for c in line.fake.calls.values() if c["parent"]]  # the callee never rang


def test_a_call_ended_before_you_answer_is_canceled_at_twilio(user, line):
    ready(user)
    placer = Placer(user)
    call = placer.quote_and_place(ANSWERS)
    ended = placer.end(call["id"]).json()
    assert (ended["status"], ended["end_reason"]) == ("canceled", "ended_by_request")
    line.wait(5)
    assert line.fake.call_to(YOUR_PHONE)["status"] == "canceled"
    assert read(placer, call)["end_reason"] == "ended_by_request"


# --- signatures ---------------------------------------------------------------------------------------


def post(url, params, signature=None):
    headers = {"X-Twilio-Signature": signature} if signature is not None else {}
    return Client(enforce_csrf_checks=True).post(
        path_of(url), urlencode(params), content_type="application/x-www-form-urlencoded", headers=headers
    )


@pytest.mark.parametrize("signature", [None, "", "bm90IHR3aWxpbydzIHNpZ25hdHVyZQ=="])
def test_a_callback_without_twilios_signature_changes_nothing_and_is_logged_once(
    user, line, settings, caplog, signature
):
    ready(user)
    placer = Placer(user)
    call = placer.quote_and_place(ANSWERS)
    url = f"{settings.BASE_URL}/carrier/twilio/status?call={call['id']}"
    params = {"AccountSid": line.fake.account_sid, "CallSid": "CA" + "1" * 32, "CallStatus": "busy"}
    with caplog.at_level(logging.WARNING, logger="apps.telephony.views"):
        response = post(url, params, signature)
    assert response.status_code == 403 and response["Content-Type"] == "application/json"
    assert len([r for r in caplog.records if r.name == "apps.telephony.views"]) == 1
    line.wait(1)
    assert read(placer, call)["status"] == "ringing_you"


def test_a_callback_signed_for_another_address_or_account_is_refused(user, line, settings):
    from twilio.request_validator import RequestValidator

    ready(user)
    placer = Placer(user)
    call = placer.quote_and_place(ANSWERS)
    validator = RequestValidator(line.fake.auth_token)
    params = {"AccountSid": line.fake.account_sid, "CallStatus": "busy"}
    signed_for = f"{settings.BASE_URL}/carrier/twilio/status?call=call_someone_else"
    url = f"{settings.BASE_URL}/carrier/twilio/status?call={call['id']}"
    assert post(url, params, validator.compute_signature(signed_for, params)).status_code == 403
    other = {**params, "AccountSid": "AC" + "9" * 32}
    assert post(url, other, validator.compute_signature(url, other)).status_code == 403
    assert read(placer, call)["status"] == "ringing_you"


# --- refusals -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "twilio_status, twilio_code, status, code, param, words",
    [
        (400, 21211, 400, "invalid_request", "quote", "not a valid phone number"),
        (400, 21210, 400, "invalid_request", "quote", "not verified"),
        (400, 21215, 422, "destination_not_allowed", "quote", "geographic permissions"),
        (401, 20003, 503, "service_unavailable", None, "not in service"),
        (429, 20429, 503, "service_unavailable", None, "busy right now"),
    ],
)
def test_twilios_refusals_are_the_contracts_codes_and_write_nothing(
    user, line, twilio_status, twilio_code, status, code, param, words
):
    ready(user)
    placer = Placer(user)
    quote = placer.quote(ANSWERS).json()
    line.fake.refuse_next_create = (twilio_status, twilio_code, "Twilio's own words")
    refused = placer.place(quote["id"])
    assert refused.status_code == status, refused.content
    error = refused.json()["error"]
    assert (error["code"], error.get("param")) == (code, param)
    assert words in error["message"]
    if status == 503:
        assert int(refused["Retry-After"]) >= 1
    assert not Call.objects.exists() and not Hold.objects.exists()
    assert Quote.objects.get(pk=quote["id"]).call_id in ("", None)
    placed = placer.place(quote["id"])  # the same quote, once Twilio takes it
    assert placed.status_code == 201 and placed.json()["status"] == "ringing_you"


def test_twilio_unreachable_is_503_and_writes_nothing(user, line, settings):
    ready(user)
    placer = Placer(user)
    quote = placer.quote(ANSWERS).json()
    line.fake.stop()
    refused = placer.place(quote["id"])
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "service_unavailable"
    assert not Call.objects.exists()


# --- messages -----------------------------------------------------------------------------------------


def test_an_sms_twilio_sends_twice_is_stored_once(user, line):
    number = make_sms_number(user, "+14155550177")
    line.fake.delivery = "duplicated"
    line.sms(number=number, sender="+447700900123", body="Your code is 424242")
    assert list(Message.objects.values_list("body", flat=True)) == ["Your code is 424242"]


def test_an_sms_to_a_number_of_no_account_is_dropped(user, line):
    make_sms_number(user, "+14155550177")
    line.fake.send_sms(to="+14155550999", sender="+447700900123", body="hello")
    line.wait(1)
    assert not Message.objects.exists()


# --- the fake holds the adapter to Twilio's description ----------------------------------------------


def test_the_fake_refuses_what_twilios_description_does_not_allow(twilio):
    from twilio.base.exceptions import TwilioRestException

    from apps.telephony.carriers.twilio.conf import rest_client

    with pytest.raises(TwilioRestException) as refused:
        rest_client().calls.create(to=YOUR_PHONE, from_="+14155550100", twiml="<Response/>", timeout="soon")
    assert refused.value.code == 20001 and "Timeout" in refused.value.msg
    with pytest.raises(TwilioRestException):
        rest_client().calls("CA" + "0" * 32).update(status="hung-up")
    assert len(twilio.violations) == 2
    twilio.violations.clear()


def test_the_description_names_its_source():
    from tests.support.twilio_fake import spec

    assert all(
        source.startswith("https://github.com/twilio/twilio-oai/blob/") and "/spec/json/" in source
        for source in spec.sources()
    )
    used = {op.operation_id for op in spec.OPERATIONS}
    assert used == {
        "CreateCall",
        "ListCall",
        "FetchCall",
        "UpdateCall",
        "ListCallRecording",
        "CreateTranscript",
        "FetchTranscript",
        "ListSentence",
        "ListOperatorResult",
    }


# --- modes --------------------------------------------------------------------------------------------


def test_test_mode_stays_on_the_simulator(user, twilio):
    ready(user, livemode=False)
    placer = Placer(user, livemode=False)
    call = placer.quote_and_place(ANSWERS)
    assert Call.objects.get(pk=call["id"]).carrier == "simulated"
    assert twilio.requests == []


def test_an_operators_own_message_to_a_live_number_goes_through_the_same_boundary(user, twilio):
    from apps.messages.services import message_arrive

    number = make_sms_number(user, "+14155550177")
    message = message_arrive(number=number, sender="+447700900123", body="Your code is 424242")
    assert message is not None and message.body == "Your code is 424242" and message.livemode
