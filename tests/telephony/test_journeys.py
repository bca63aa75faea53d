"""A user's day with callback calls, the same on each live-mode carrier (docs/design.md): the simulator and
the Twilio adapter on the local fake of Twilio. Numbers behave as the simulator's table says, on both."""

import pytest

from apps.billing.models import BalanceTransaction, Hold
from apps.mcp_bridge import registry  # noqa: F401  the tools are registered
from tests.calls.callbacks import (
    TRANSCRIPT_PRICE,
    TRANSCRIPT_SCOPES,
    YOUR_PHONE,
    Placer,
    outcome,
    ready,
    transcribe,
)
from tests.messages.factories import make_sms_number
from tests.support.mcp import McpClient, install_fake_tokens

pytestmark = pytest.mark.django_db

ANSWERS = "+12025550100"  # answers in 5 s, talks 30 s, hangs up
BUSY = "+12025550101"
NO_ANSWER = "+12025550102"  # rings 45 s
UNROUTABLE = "+12025550103"
STAYS = "+12025550104"  # answers, stays until ended or max_duration
NEVER_PRESSES_1 = "+12025550191"
DOES_NOT_ANSWER = "+12025550190"
DECLINES = "+12025550192"


def charges(user, call_id):
    return list(BalanceTransaction.objects.filter(user=user, livemode=True, type="call", source=call_id))


def test_a_callback_from_quote_to_completed_is_charged_once(user, line):
    ready(user)
    placer = Placer(user)
    quote = placer.quote(ANSWERS)
    assert quote.status_code == 201
    call = placer.place(quote.json()["id"]).json()
    assert call["status"] == "ringing_you"
    line.wait(6)  # you answered at +2 and pressed 1 at +4
    assert placer.read(call)["status"] == "ringing"
    line.wait(5)  # the callee answered at +9
    assert placer.read(call)["status"] == "in_progress"
    line.wait(40)  # and hung up 30 s later
    ended = placer.read(call)
    assert ended["status"] == "completed" and ended["end_reason"] == "callee_hung_up"
    assert ended["duration"] == 30 and ended["amount"] == 6
    line.wait(180)  # late, retried and repeated news change nothing
    assert placer.read(call) == ended
    assert [charge.amount for charge in charges(user, call["id"])] == [-6]
    assert not Hold.objects.filter(user=user, released_at__isnull=True).exists()


@pytest.mark.parametrize(
    "to, your_phone, wait, status, reason",
    [
        (BUSY, None, 20, "busy", "callee_busy"),
        (NO_ANSWER, None, 60, "no_answer", "callee_no_answer"),
        (UNROUTABLE, None, 20, "failed", "failed"),
        (ANSWERS, NEVER_PRESSES_1, 30, "canceled", "you_did_not_press_1"),
        (ANSWERS, DOES_NOT_ANSWER, 40, "no_answer", "you_did_not_answer"),
        (ANSWERS, DECLINES, 20, "canceled", "you_declined"),
    ],
)
def test_calls_that_never_connect_cost_nothing(user, line, to, your_phone, wait, status, reason):
    ready(user, **({"phone": your_phone} if your_phone else {}))
    placer = Placer(user)
    call = placer.quote_and_place(to)
    line.wait(wait)
    ended = placer.read(call)
    assert (ended["status"], ended["end_reason"]) == (status, reason)
    assert ended["amount"] in (0, None) and charges(user, call["id"]) == []
    assert placer.balance()["held_amount"] == 0


def test_a_call_ended_through_the_api_mid_call(user, line):
    ready(user)
    placer = Placer(user)
    call = placer.quote_and_place(STAYS)
    line.wait(70)  # answered at +9: 61 s of talk
    assert placer.read(call)["status"] == "in_progress"
    ended = placer.end(call["id"])
    assert ended.status_code == 200
    assert ended.json()["status"] == "completed" and ended.json()["end_reason"] == "ended_by_request"
    line.wait(30)  # the carrier hangs up; its news of it changes nothing
    after = placer.read(call)
    assert after["status"] == "completed" and after["end_reason"] == "ended_by_request"
    assert after["duration"] == 61 and after["amount"] == 12  # two started minutes at 6
    assert [charge.amount for charge in charges(user, call["id"])] == [-12]
    if line.name == "twilio":
        assert line.fake.call_to(YOUR_PHONE)["status"] == "completed"
        assert line.fake.call_to(STAYS)["status"] == "completed"


def test_a_call_that_reaches_its_max_duration_ends_at_the_time_limit(user, line):
    ready(user, credit=12)  # two minutes at 6 a minute
    placer = Placer(user)
    call = placer.quote_and_place(STAYS)
    assert call["max_duration"] == 120
    line.wait(140)
    assert outcome(placer.read(call)) == ("completed", "time_limit", 120, 12)


def test_an_inbound_sms_is_read_through_svc_read_messages(user, line, settings):
    number = make_sms_number(user, "+14155550177")
    line.sms(number=number, sender="+447700900123", body="Your Demo code is 123456.")
    mcp = McpClient(install_fake_tokens(settings).issue(user, scopes=frozenset({"messages:read"})))
    response = mcp.request("tools/call", {"name": "svc_read_messages", "arguments": {}})
    result = response.json()["result"]
    assert result["isError"] is False, result
    messages = result["structuredContent"]["messages"]
    assert [(m["from"], m["one_time_code"]["code"]) for m in messages] == [("+447700900123", "123456")]


def test_a_recorded_call_is_transcribed_and_the_transcript_charged_once(user, line):
    from apps.accounts.security import sharing_update

    ready(user)
    sharing_update(user=user, call_summaries=True, message_reading=False)
    placer = Placer(user, scopes=TRANSCRIPT_SCOPES)
    call = placer.quote_and_place(ANSWERS, record=True)
    line.wait(45)
    assert placer.read(call)["status"] == "completed"
    requested = transcribe(placer, call["id"])
    assert requested.status_code == 202 and requested.json()["status"] == "queued"
    line.wait(30)
    done = transcribe(placer, call["id"])
    assert done.status_code == 200, done.content
    transcript = done.json()
    assert transcript["status"] == "completed", transcript
    assert transcript["summary"] and transcript["amount"] == TRANSCRIPT_PRICE
    line.wait(60)
    rows = BalanceTransaction.objects.filter(user=user, livemode=True, type="transcript")
    assert [row.amount for row in rows] == [-TRANSCRIPT_PRICE]
