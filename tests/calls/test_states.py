"""The transitions table of docs/design.md "Quotes and callback calls", row by row, applied through the one
service; and the simulator's numbers."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.billing.models import BalanceTransaction, Hold
from apps.billing.services import ledger_append
from apps.calls.models import Call
from apps.calls.states import TRANSITIONS, call_apply_event
from apps.jobs.public import run_due
from apps.telephony import events as ev
from apps.telephony import simulator
from apps.telephony.events import CarrierEvent, deliver
from tests.calls.callbacks import Placer, ready

pytestmark = pytest.mark.django_db

S = "status"
ROWS = [
    # (from, event, to, end_reason)
    ("queued", ev.YOU_RINGING, "ringing_you", None),
    ("queued", ev.REFUSED, "failed", "failed"),
    ("ringing_you", ev.YOU_PRESSED_1, "ringing", None),
    ("ringing_you", ev.YOU_NO_ANSWER, "no_answer", "you_did_not_answer"),
    ("ringing_you", ev.YOU_DECLINED, "canceled", "you_declined"),
    ("ringing_you", ev.YOU_DID_NOT_PRESS_1, "canceled", "you_did_not_press_1"),
    ("ringing_you", ev.END_REQUESTED, "canceled", "ended_by_request"),
    ("ringing", ev.CALLEE_ANSWERED, "in_progress", None),
    ("ringing", ev.CALLEE_BUSY, "busy", "callee_busy"),
    ("ringing", ev.CALLEE_NO_ANSWER, "no_answer", "callee_no_answer"),
    ("ringing", ev.UNROUTABLE, "failed", "failed"),
    ("ringing", ev.YOU_HUNG_UP, "canceled", "you_hung_up"),
    ("ringing", ev.END_REQUESTED, "canceled", "ended_by_request"),
    ("in_progress", ev.CALLEE_HUNG_UP, "completed", "callee_hung_up"),
    ("in_progress", ev.YOU_HUNG_UP, "completed", "you_hung_up"),
    ("in_progress", ev.END_REQUESTED, "completed", "ended_by_request"),
    ("in_progress", ev.TIME_LIMIT, "completed", "time_limit"),
]


def _callback(owner, status, *, answered_ago=None, hold=100):
    now = timezone.now()
    call = Call.objects.create(
        user=owner,
        livemode=True,
        created=now - timedelta(minutes=2),
        direction="outbound",
        status=status,
        from_number="+14155550123",
        to_number="+12025550100",
        per_minute_amount_decimal=6,
        first_seconds=60,
        next_seconds=60,
        quote_id="quo_test",
        your_number="+14155550123",
        caller_id="+14155550123",
        max_duration=3600,
        answered_at=now - answered_ago if answered_ago else None,
        spend=hold,
    )
    held = Hold.objects.create(user=owner, livemode=True, created=now, amount=hold, currency="usd", source=call.id)
    Call.objects.filter(pk=call.pk).update(hold_id=held.id)
    return call


def test_the_table_is_docs_calls_md_table():
    # docs/design.md's rows, plus ending a queued call (an end request works on any live call).
    expected = {(f, e): (t, r) for f, e, t, r in ROWS} | {
        ("queued", ev.END_REQUESTED): ("canceled", "ended_by_request")
    }
    assert {key: (step.to, step.end_reason or None) for key, step in TRANSITIONS.items()} == expected


@pytest.mark.parametrize(
    ("start", "kind", "to", "reason"), [*ROWS, ("queued", ev.END_REQUESTED, "canceled", "ended_by_request")]
)
def test_each_row(owner, clock, start, kind, to, reason):
    ledger_append(user=owner, livemode=True, amount=1000, type="top_up", source=None, description="Top-up")
    answered = timedelta(seconds=61) if start == "in_progress" else None
    call = _callback(owner, start, answered_ago=answered)
    _changed, applied = call_apply_event(call_id=call.id, kind=kind, at=clock.at)
    assert applied
    call.refresh_from_db()
    assert call.status == to
    assert (call.end_reason or None) == reason
    stamps = {"ringing_you": "ringing_you_at", "ringing": "ringing_at", "in_progress": "answered_at"}
    if to in stamps:
        assert getattr(call, stamps[to]) == clock.at
    ended = reason is not None
    assert (call.ended_at == clock.at) is ended
    hold = Hold.objects.get(source=call.id)
    assert (hold.released_at is not None) is ended
    charges = BalanceTransaction.objects.filter(type="call", source=call.id)
    if start == "in_progress" and ended:
        # Answered time only: 61 s billed as two minutes at 6 cents.
        assert call.duration == 61 and call.spend == 12 and [c.amount for c in charges] == [-12]
    else:
        assert not charges.exists() and (call.spend == (0 if ended else 100))


@pytest.mark.parametrize(
    "status",
    ["queued", "ringing_you", "ringing", "in_progress", "completed", "busy", "no_answer", "failed", "canceled"],
)
def test_every_other_event_is_ignored_and_logged(owner, clock, status, caplog):
    call = _callback(owner, status)
    for kind in sorted(ev.CALL_KINDS):
        if (status, kind) in TRANSITIONS:
            continue
        _, applied = call_apply_event(call_id=call.id, kind=kind, at=clock.at)
        assert not applied
    call.refresh_from_db()
    assert call.status == status
    assert "ignored" in caplog.text


def test_unknown_kinds_and_calls_are_ignored(owner, clock, caplog):
    call = _callback(owner, "ringing")
    deliver(CarrierEvent("call", "teleported", call.id, clock.at))
    deliver(CarrierEvent("call", ev.CALLEE_ANSWERED, "call_nosuchcall", clock.at))
    deliver(CarrierEvent("fax", "received", call.id, clock.at))
    call.refresh_from_db()
    assert call.status == "ringing"
    assert caplog.text.count("ignored") == 3


def test_an_event_that_arrives_twice_is_applied_once(owner, clock):
    ledger_append(user=owner, livemode=True, amount=1000, type="top_up", source=None, description="Top-up")
    call = _callback(owner, "in_progress", answered_ago=timedelta(seconds=30))
    for _ in range(2):
        deliver(CarrierEvent("call", ev.CALLEE_HUNG_UP, call.id, clock.at))
    assert BalanceTransaction.objects.filter(type="call").count() == 1


DESTINATIONS = [
    ("+12025550100", "completed", "callee_hung_up", 6),
    ("+12025550101", "busy", "callee_busy", None),
    ("+12025550102", "no_answer", "callee_no_answer", None),
    ("+12025550103", "failed", "failed", None),
    ("+12025550199", "completed", "callee_hung_up", 6),
]


@pytest.mark.parametrize(("to", "status", "reason", "amount"), DESTINATIONS)
def test_the_simulators_destinations(owner, line, to, status, reason, amount):
    # The magic numbers behave alike on the simulator and on Twilio (its local fake plays the same table).
    ready(owner)
    placer = Placer(owner)
    call = placer.quote_and_place(to)
    line.wait(120)
    done = placer.get(f"/v1/calls/{call['id']}").json()
    assert (done["status"], done["end_reason"], done["amount"]) == (status, reason, amount)


def test_0104_stays_until_max_duration(owner, clock, settings):
    settings.CALL_SPEND_LIMIT_CREDENTIAL_DAILY = "0.12"  # two minutes
    ready(owner)
    placer = Placer(owner)
    call = placer.quote_and_place("+12025550104")
    assert call["max_duration"] == 120
    run_due(now=clock.at + timedelta(seconds=9 + 119))
    assert placer.get(f"/v1/calls/{call['id']}").json()["status"] == "in_progress"
    run_due(now=clock.at + timedelta(seconds=9 + 120))
    done = Call.objects.get(pk=call["id"])
    assert (done.status, done.end_reason, done.duration, done.spend) == ("completed", "time_limit", 120, 12)


@pytest.mark.parametrize(
    ("phone", "status", "reason"),
    [
        ("+12025550190", "no_answer", "you_did_not_answer"),
        ("+12025550191", "canceled", "you_did_not_press_1"),
        ("+12025550192", "canceled", "you_declined"),
    ],
)
def test_the_simulators_your_numbers(owner, line, phone, status, reason):
    ready(owner, phone=phone)
    placer = Placer(owner)
    call = placer.quote_and_place("+12025550100")
    line.wait(120)
    done = Call.objects.get(pk=call["id"])
    assert (done.status, done.end_reason, done.ringing_at, done.spend) == (status, reason, None, 0)
    assert placer.balance()["held_amount"] == 0


def test_the_timeline_is_the_table():
    assert simulator.timeline(your="+14155550123", to="+12025550100", max_duration=600) == [
        (4, ev.YOU_PRESSED_1),
        (9, ev.CALLEE_ANSWERED),
        (39, ev.CALLEE_HUNG_UP),
    ]
    assert simulator.timeline(your="+14155550123", to="+12025550100", max_duration=10) == [
        (4, ev.YOU_PRESSED_1),
        (9, ev.CALLEE_ANSWERED),
        (19, ev.TIME_LIMIT),
    ]
    assert simulator.timeline(your="+12025550190", to="+12025550100", max_duration=600) == [(30, ev.YOU_NO_ANSWER)]


@pytest.mark.parametrize(
    ("status", "kind", "event_type"),
    [
        ("queued", ev.YOU_RINGING, "call.ringing_you"),
        ("ringing", ev.CALLEE_ANSWERED, "call.in_progress"),
        ("in_progress", ev.CALLEE_HUNG_UP, "call.ended"),
        ("ringing_you", ev.YOU_DECLINED, "call.ended"),
    ],
)
def test_a_state_change_publishes_its_webhook_event_in_its_transaction(owner, clock, status, kind, event_type):
    from apps.webhooks.models import Event

    call = _callback(owner, status, answered_ago=timedelta(seconds=30) if status == "in_progress" else None)
    call_apply_event(call_id=call.id, kind=kind, at=clock.at)
    event = Event.objects.get()
    assert (event.type, event.user_id, event.livemode) == (event_type, owner.pk, True)
    assert event.data["id"] == call.id and event.data["object"] == "call"
    assert event.data["status"] == Call.objects.get(pk=call.pk).status


def test_a_ringing_call_answered_by_you_publishes_nothing(owner, clock):
    from apps.webhooks.models import Event

    call = _callback(owner, "ringing_you")
    call_apply_event(call_id=call.id, kind=ev.YOU_PRESSED_1, at=clock.at)  # ringing: no event type
    assert not Event.objects.exists()


def test_an_ignored_event_publishes_nothing(owner, clock):
    from apps.webhooks.models import Event

    call = _callback(owner, "completed")
    call_apply_event(call_id=call.id, kind=ev.CALLEE_ANSWERED, at=clock.at)
    assert not Event.objects.exists()


def test_the_docs_page_prints_the_simulators_table(client):
    page = client.get("/docs/calls").content.decode()
    for behaviour in (*simulator.DESTINATIONS, *simulator.YOUR_NUMBERS):
        assert behaviour.says.replace("'", "&#x27;") in page
