"""Callback calls on the Twilio adapter (docs/operations.md, "A real carrier"): what it asks Twilio, and how
it applies Twilio's callbacks however they travel (duplicated, retried, out of order, lost: then a status
fetch). Twilio is the local fake (tests/support/twilio_fake)."""

import xml.etree.ElementTree as ET

import pytest

from apps.billing.models import BalanceTransaction
from apps.contacts.services import PhoneInput, contact_create
from tests.calls.callbacks import YOUR_PHONE, Placer, outcome, ready

pytestmark = pytest.mark.django_db

ANSWERS, STAYS, DECLINES, DOES_NOT_ANSWER = "+12025550100", "+12025550104", "+12025550192", "+12025550190"


def placed(user):
    """A ready account's Placer, and the call it placed to a callee who answers."""
    ready(user)
    placer = Placer(user)
    return placer, placer.quote_and_place(ANSWERS)


def twiml(text: str) -> ET.Element:
    return ET.fromstring(text.encode())


def test_your_phone_is_asked_to_press_1_for_the_contact_then_the_callee_sees_the_quotes_caller_id(user, on_twilio):
    ready(user)
    contact = contact_create(user=user, livemode=True, name="Ana Lopez", phone_numbers=[PhoneInput(ANSWERS)])
    placer = Placer(user)
    quote = placer.quote(contact.id, record=True).json()
    call = placer.place(quote["id"]).json()
    placed = on_twilio.fake.parent_calls()[0]
    assert (placed["to"], placed["from"]) == (YOUR_PHONE, quote["caller_id"])
    prompt = twiml(on_twilio.fake.twiml[0]).find("Gather")
    assert prompt.get("numDigits") == "1" and prompt.get("timeout") == "15"
    assert prompt.find("Say").text == "Press 1 to connect your call to Ana Lopez."
    on_twilio.wait(6)
    dial = twiml(on_twilio.fake.twiml[1]).find("Dial")
    assert dial.get("callerId") == quote["caller_id"]
    assert dial.get("timeLimit") == str(quote["max_duration"]) == str(call["max_duration"])
    assert dial.get("record") == "record-from-answer"
    assert dial.find("Number").text == ANSWERS


def test_without_record_nothing_is_recorded_and_the_prompt_reads_the_number(user, on_twilio):
    ready(user)
    Placer(user).quote_and_place(ANSWERS)
    assert "Press 1 to connect your call to +1 202-555-0100." in on_twilio.fake.twiml[0]
    on_twilio.wait(6)
    assert twiml(on_twilio.fake.twiml[1]).find("Dial").get("record") is None


@pytest.mark.parametrize("delivery", ["duplicated", "retried", "out_of_order"])
def test_callbacks_retried_duplicated_or_out_of_order_are_applied_once(user, on_twilio, delivery):
    on_twilio.fake.delivery = delivery
    placer, call = placed(user)
    on_twilio.wait(60)
    ended = placer.read(call)
    assert (ended["status"], ended["end_reason"], ended["duration"]) == ("completed", "callee_hung_up", 30)
    assert list(
        BalanceTransaction.objects.filter(user=user, type="call", source=call["id"]).values_list("amount", flat=True)
    ) == [-6]
    if delivery != "out_of_order":
        sent = [
            params["CallStatus"] for kind, url, params in on_twilio.fake.sent if "/status" in url and kind == "sent"
        ]
        assert sent.count("completed") == 2  # Twilio sent your leg's end twice


@pytest.mark.parametrize(
    "phone, status, reason",
    [(DECLINES, "canceled", "you_declined"), (DOES_NOT_ANSWER, "no_answer", "you_did_not_answer")],
)
def test_a_call_whose_callbacks_were_lost_ends_by_a_status_fetch(user, on_twilio, phone, status, reason):
    on_twilio.fake.delivery = "lost"
    ready(user, phone=phone)
    placer = Placer(user)
    call = placer.quote_and_place(ANSWERS)
    on_twilio.wait(60)
    assert placer.read(call)["status"] == "ringing_you"  # nothing arrived
    on_twilio.wait(70)  # the worker's check, two minutes after placing
    ended = placer.read(call)
    assert (ended["status"], ended["end_reason"]) == (status, reason)
    assert placer.balance()["held_amount"] == 0


def test_a_connected_call_whose_status_callbacks_were_lost_is_still_billed_from_the_answer(user, on_twilio):
    on_twilio.fake.delivery = "lost"  # the gather and dial actions still arrive: Twilio waits on them
    placer, call = placed(user)
    on_twilio.wait(60)
    assert outcome(placer.read(call)) == ("completed", "callee_hung_up", 30, 6)


def test_a_connected_call_whose_every_news_after_the_answer_was_lost_is_billed_from_twilios_records(user, on_twilio):
    on_twilio.fake.delivery = "lost"
    on_twilio.fake.dial_action_unreachable = True
    placer, call = placed(user)
    on_twilio.wait(60)
    assert placer.read(call)["status"] == "ringing"  # you pressed 1; nothing after arrived
    on_twilio.wait(70)  # the worker's check fetches your leg and the callee's
    assert outcome(placer.read(call)) == ("completed", "callee_hung_up", 30, 6)


def test_a_transcript_twilio_fails_costs_nothing(user, on_twilio):
    from apps.accounts.security import sharing_update
    from tests.calls.callbacks import TRANSCRIPT_SCOPES, transcribe

    ready(user)
    sharing_update(user=user, call_summaries=True, message_reading=False)
    placer = Placer(user, scopes=TRANSCRIPT_SCOPES)
    call = placer.quote_and_place("+12025550106", record=True)  # Twilio cannot transcribe its recording
    on_twilio.wait(45)
    assert transcribe(placer, call["id"]).status_code == 202
    on_twilio.wait(30)
    transcript = transcribe(placer, call["id"]).json()
    assert (transcript["status"], transcript["failure_reason"], transcript["amount"]) == (
        "failed",
        "provider_error",
        0,
    )
    assert not BalanceTransaction.objects.filter(type="transcript").exists()


def test_you_hang_up_before_pressing_1(user, on_twilio):
    on_twilio.fake.your_phone_hangs_up_at_prompt = True
    placer, call = placed(user)
    on_twilio.wait(20)
    ended = placer.read(call)
    assert (ended["status"], ended["end_reason"]) == ("canceled", "you_did_not_press_1")
    assert not [c for c in on_twilio.fake.calls.values() if c["parent"]]  # the callee never rang


def test_a_call_ended_before_you_answer_is_canceled_at_twilio(user, on_twilio):
    placer, call = placed(user)
    ended = placer.end(call["id"]).json()
    assert (ended["status"], ended["end_reason"]) == ("canceled", "ended_by_request")
    on_twilio.wait(5)
    assert on_twilio.fake.call_to(YOUR_PHONE)["status"] == "canceled"
    assert placer.read(call)["end_reason"] == "ended_by_request"
