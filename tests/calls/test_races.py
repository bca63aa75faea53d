"""Placing and ending under concurrency, on PostgreSQL with threads against one database.

Placements of one account and mode queue on its balance row's lock, so each sees what the one
before wrote: one quote places one call, one callback is live at a time, holds never exceed
the balance. An end and the callee's answer lock the call row: one final state, one charge at most.
"""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.billing.models import BalanceTransaction, Hold
from apps.billing.selectors import balance_get
from apps.calls.models import Call
from apps.calls.services import quote_create
from apps.credentials.principal import Principal
from apps.telephony import events as ev
from apps.telephony.events import CarrierEvent, deliver
from tests.calls.callbacks import CALLEE, STAYS, Placer, ready
from tests.support.races import postgresql_only, together

pytestmark = [pytest.mark.django_db(transaction=True), postgresql_only]

N = 10


def principal(owner, key_id="key_race"):
    return Principal(kind="api_key", user=owner, credential_id=key_id, scopes=frozenset({"calls:place"}))


def test_one_quote_placed_by_ten_requests_makes_one_call(owner):
    ready(owner)
    placer = Placer(owner)
    quote = quote_create(principal=principal(owner), to=CALLEE)
    responses = together(lambda i: placer.place(quote.id, key=str(uuid.uuid4())), N)
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [409] * (N - 1)
    assert {r.json()["error"]["code"] for r in responses if r.status_code == 409} == {"quote_used"}
    assert Call.objects.count() == 1 and Hold.objects.count() == 1


def test_ten_quotes_placed_at_once_make_one_live_call(owner):
    ready(owner)
    placer = Placer(owner)
    quotes = [quote_create(principal=principal(owner), to=f"+1202555{n:04d}") for n in range(200, 200 + N)]
    responses = together(lambda i: placer.place(quotes[i].id, key=str(uuid.uuid4())), N)
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [409] * (N - 1)
    assert {r.json()["error"]["code"] for r in responses if r.status_code == 409} == {"call_in_progress"}
    assert Call.objects.filter(status="ringing_you").count() == 1


def test_parallel_placements_never_drive_available_below_zero(owner, stranger):
    # Two accounts and both modes: four balances, placements racing within and across them.
    for user in (owner, stranger):
        ready(user, credit=7, phone="+14155550123" if user == owner else "+14155550124")
        ready(user, livemode=False, credit=13, rates_too=False, phone="+14155550125")
    placers = [Placer(user, livemode=mode) for user in (owner, stranger) for mode in (True, False)]
    quotes = {
        id(p): [
            quote_create(principal=Principal(kind="api_key", user=u, credential_id=f"k{n}", livemode=m), to=CALLEE)
            for n in range(3)
        ]
        for p, (u, m) in zip(placers, [(owner, True), (owner, False), (stranger, True), (stranger, False)], strict=True)
    }

    def work(i):
        placer = placers[i % 4]
        return placer.place(quotes[id(placer)][i // 4].id, key=str(uuid.uuid4()))

    together(work, 12)
    for user in (owner, stranger):
        for livemode in (True, False):
            balance = balance_get(principal=Principal(kind="api_key", user=user, credential_id="x", livemode=livemode))
            assert balance.amount - balance.held_amount >= 0
            assert Call.objects.filter(user=user, livemode=livemode, status="ringing_you").count() == 1


@pytest.mark.parametrize("attempt", range(5))
def test_an_end_racing_the_answer_ends_once_and_charges_at_most_once(owner, attempt):
    ready(owner)
    placer = Placer(owner)
    call = placer.quote_and_place(STAYS)
    deliver(CarrierEvent("call", ev.YOU_PRESSED_1, call["id"], timezone.now()))
    answer_at = timezone.now() + timedelta(seconds=1)

    def work(i):
        if i == 0:
            return deliver(CarrierEvent("call", ev.CALLEE_ANSWERED, call["id"], answer_at))
        return placer.end(call["id"]).status_code

    together(work, 2)
    final = Call.objects.get(pk=call["id"])
    assert final.status in ("canceled", "completed")
    charges = BalanceTransaction.objects.filter(type="call", source=call["id"]).count()
    assert charges <= 1
    assert (final.status == "completed") == (final.answered_at is not None)
    assert Hold.objects.get(source=call["id"]).released_at is not None
    # Whatever came second changed nothing: the call stays as it ended.
    deliver(CarrierEvent("call", ev.CALLEE_ANSWERED, call["id"], answer_at))
    assert Call.objects.get(pk=call["id"]).status == final.status
