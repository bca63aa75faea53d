"""POST /v1/calls and POST /v1/calls/{id}/end: refusals in docs/design.md's order, the hold, the charge, isolation."""

from datetime import timedelta

import pytest

from apps.audit.models import AuditEvent
from apps.billing.models import BalanceTransaction, Hold
from apps.calls.models import Call, Quote
from apps.jobs.public import run_due
from tests.calls.callbacks import CALLEE, STAYS, YOUR_PHONE, Placer, ready
from tests.support.envelope import assert_error

pytestmark = pytest.mark.django_db


@pytest.fixture
def placer(owner, clock):
    ready(owner)
    return Placer(owner)


def test_placing_answers_ringing_you_and_holds_max_amount(placer, owner, clock):
    quote = placer.quote().json()
    response = placer.place(quote["id"])
    assert response.status_code == 201, response.content
    call = response.json()
    assert call["object"] == "call" and call["status"] == "ringing_you"
    assert call["direction"] == "outbound" and call["quote"] == quote["id"]
    assert call["your_number"] == YOUR_PHONE and call["caller_id"] == YOUR_PHONE and call["to"] == CALLEE
    assert call["max_duration"] == quote["max_duration"] and call["end_reason"] is None
    assert call["status_transitions"]["ringing_you_at"] == int(clock.at.timestamp())
    assert call["amount"] is None
    balance = placer.balance()
    assert balance["amount"] == 1000
    assert balance["held_amount"] == quote["max_amount"] == 996
    assert balance["available_amount"] == 4
    assert placer.quote().status_code == 402  # 4 cents left: below the first minute
    hold = Hold.objects.get()
    assert hold.id.startswith("hold_") and hold.source == call["id"] and hold.released_at is None
    event = AuditEvent.objects.get(event_type="call.placed")
    assert event.data["call"] == call["id"] and event.data["to"] == CALLEE and event.key_id
    assert event.data["summary"] == "placed a call to +1 202-555-0100"


def test_the_quote_is_used(placer):
    quote = placer.quote().json()
    call = placer.quote_and_place.__self__.place(quote["id"]).json()
    assert Quote.objects.get(pk=quote["id"]).call_id == call["id"]


def test_idempotency_key_is_required(placer):
    quote = placer.quote().json()
    assert_error(placer.place(quote["id"], key=None), 400, "idempotency_key_required", param="Idempotency-Key")
    assert not Call.objects.exists()


def test_a_replay_returns_the_same_call(placer):
    quote = placer.quote().json()
    first = placer.place(quote["id"], key="k-1")
    again = placer.place(quote["id"], key="k-1")
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"] and Call.objects.count() == 1


def test_the_stored_answer_is_the_answer_sent(placer):
    # The answer is stored with the placement's own writes: a replay is the first answer, field for field.
    quote = placer.quote().json()
    first = placer.place(quote["id"], key="k-same")
    again = placer.place(quote["id"], key="k-same")
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and "Idempotent-Replayed" not in first


def test_a_placement_whose_key_was_taken_over_writes_nothing(placer, monkeypatch):
    # Another request took the key over (its claim looked abandoned) while this one ran: this run's
    # answer cannot be stored, so nothing of it is kept and the quote can still be placed.
    from apps.api_v1.models import IdempotencyRecord
    from apps.calls import services

    reads = services.placement_reads

    def taken_over_meanwhile(**kwargs):
        IdempotencyRecord.objects.update(lock_token="someone-else")
        return reads(**kwargs)

    monkeypatch.setattr(services, "placement_reads", taken_over_meanwhile)
    quote = placer.quote().json()
    assert_error(placer.place(quote["id"], key="k-taken"), 409, "conflict")
    assert not Call.objects.exists() and not Hold.objects.exists()
    assert not Quote.objects.get(pk=quote["id"]).call_id
    monkeypatch.setattr(services, "placement_reads", reads)
    assert placer.place(quote["id"]).status_code == 201


def test_refusals_in_order(placer, owner, clock, settings):
    # 404: no such quote, param quote.
    assert_error(placer.place("quo_doesnotexist"), 404, "not_found", param="quote")
    assert_error(placer.place(None), 404, "not_found", param="quote")
    # 410: expired, even when also used later.
    old = placer.quote().json()
    clock.tick(601)
    assert_error(placer.place(old["id"]), 410, "quote_expired", param="quote")
    # 409 quote_used names the call.
    first, second, _third = (placer.quote().json() for _ in range(3))
    call = placer.place(first["id"]).json()
    error = assert_error(placer.place(first["id"]), 409, "quote_used", param="quote")
    assert call["id"] in error["message"]
    # 409 call_in_progress names the live call.
    error = assert_error(placer.place(second["id"]), 409, "call_in_progress")
    assert call["id"] in error["message"]
    # Ended: the balance, then the caps, are checked again.
    placer.end(call["id"])
    settings.CALL_SPEND_LIMIT_DAILY = "0.01"
    assert_error(placer.place(second["id"]), 403, "spend_limit_exceeded")
    BalanceTransaction.objects.all()  # the ledger is untouched by refusals
    assert Call.objects.count() == 1 and Hold.objects.filter(released_at__isnull=True).count() == 0


def test_balance_checked_again_at_placing(owner, clock):
    ready(owner, credit=10)
    placer = Placer(owner)
    quote = placer.quote().json()
    from apps.billing.services import ledger_append

    ledger_append(user=owner, livemode=True, amount=-6, type="adjustment", source=None, description="Fee")
    assert_error(placer.place(quote["id"]), 402, "insufficient_credits")


def test_a_placement_holds_only_what_is_left(owner, clock):
    ready(owner, credit=100)
    placer = Placer(owner)
    quote = placer.quote().json()
    assert quote["max_amount"] == 96
    from apps.billing.services import ledger_append

    ledger_append(user=owner, livemode=True, amount=-40, type="adjustment", source=None, description="Fee")
    call = placer.place(quote["id"]).json()
    assert call["max_duration"] == 10 * 60
    assert placer.balance()["held_amount"] == 60


def test_another_accounts_quote_and_call_are_404(placer, stranger, clock):
    ready(stranger, rates_too=False, phone="+14155550124")
    theirs = Placer(stranger)
    quote = theirs.quote().json()
    assert_error(placer.place(quote["id"]), 404, "not_found", param="quote")
    call = theirs.place(quote["id"]).json()
    assert_error(placer.end(call["id"]), 404, "not_found", param="call_id")
    assert_error(placer.get(f"/v1/calls/{call['id']}"), 404, "not_found", param="call_id")
    assert Call.objects.get(pk=call["id"]).status == "ringing_you"


def test_test_mode_is_isolated(owner, clock):
    ready(owner)
    ready(owner, livemode=False, credit=50, rates_too=False)
    live, test = Placer(owner), Placer(owner, livemode=False)
    test_quote = test.quote().json()
    assert test_quote["livemode"] is False and test_quote["max_amount"] == 48
    assert_error(live.place(test_quote["id"]), 404, "not_found", param="quote")
    test_call = test.place(test_quote["id"]).json()
    assert test_call["livemode"] is False
    # The live account can still place: the live callback is of the other mode.
    live_call = live.quote_and_place()
    assert live_call["livemode"] is True
    assert test.balance()["held_amount"] == 48 and live.balance()["held_amount"] == 996
    assert_error(live.end(test_call["id"]), 404, "not_found", param="call_id")


def test_an_inbound_call_in_progress_does_not_block(placer, owner):
    from tests.calls.factories import live_call

    live_call(user=owner, direction="inbound")
    assert placer.quote_and_place()["status"] == "ringing_you"


def test_end_before_answer_cancels_and_releases(placer, clock):
    call = placer.quote_and_place()
    clock.tick(2)
    response = placer.end(call["id"])
    assert response.status_code == 200
    ended = response.json()
    assert ended["status"] == "canceled" and ended["end_reason"] == "ended_by_request"
    assert ended["amount"] is None and ended["duration"] == 0
    assert placer.balance() | {} == placer.balance() and placer.balance()["held_amount"] == 0
    assert not BalanceTransaction.objects.filter(type="call").exists()
    assert AuditEvent.objects.filter(event_type="call.ended").count() == 1
    again = placer.end(call["id"])
    assert again.status_code == 200 and again.json() == ended
    assert AuditEvent.objects.filter(event_type="call.ended").count() == 1


def test_end_in_progress_completes_and_charges_answered_time(placer, clock):
    call = placer.quote_and_place(STAYS)
    placed_at = clock.at
    clock.tick(9)  # you pressed 1 at +4, the callee answered at +9
    assert placer.get(f"/v1/calls/{call['id']}").json()["status"] == "in_progress"
    clock.tick(61)  # 61 s of talk: two minutes billed
    ended = placer.end(call["id"]).json()
    assert ended["status"] == "completed" and ended["end_reason"] == "ended_by_request"
    assert ended["duration"] == 61 and ended["billed_duration"] == 120 and ended["amount"] == 12
    assert ended["status_transitions"]["answered_at"] == int((placed_at + timedelta(seconds=9)).timestamp())
    charge = BalanceTransaction.objects.get(type="call")
    assert charge.amount == -12 and charge.source == call["id"] and charge.ending_balance == 988
    balance = placer.balance()
    assert balance == {**balance, "amount": 988, "held_amount": 0, "available_amount": 988}


def test_the_simulator_plays_the_quick_start(placer, clock):
    call = placer.quote_and_place()
    clock.tick(4)
    assert placer.get(f"/v1/calls/{call['id']}").json()["status"] == "ringing"
    clock.tick(5)
    assert placer.get(f"/v1/calls/{call['id']}").json()["status"] == "in_progress"
    clock.tick(30)
    done = placer.get(f"/v1/calls/{call['id']}").json()
    assert done["status"] == "completed" and done["end_reason"] == "callee_hung_up"
    assert done["duration"] == 30 and done["amount"] == 6
    assert placer.balance()["amount"] == 994


def test_the_worker_plays_it_too(placer, clock):
    call = placer.quote_and_place()
    run_due(now=clock.at + timedelta(seconds=60))
    assert Call.objects.get(pk=call["id"]).status == "completed"


def test_end_after_the_callee_hung_up_is_unchanged(placer, clock):
    call = placer.quote_and_place()
    clock.tick(120)
    ended = placer.end(call["id"]).json()
    assert ended["status"] == "completed" and ended["end_reason"] == "callee_hung_up" and ended["amount"] == 6
    assert BalanceTransaction.objects.filter(type="call").count() == 1


def test_end_without_calls_place_is_403(placer, owner):
    call = placer.quote_and_place()
    reader = Placer(owner, scopes=["calls:read"])
    response = reader.end(call["id"])
    assert_error(response, 403, "insufficient_scope")


def test_placing_without_calls_place_is_403(placer, owner):
    quote = placer.quote().json()
    response = Placer(owner, scopes=["calls:read"]).place(quote["id"])
    assert_error(response, 403, "insufficient_scope")
    assert 'scope="calls:place"' in response["WWW-Authenticate"]


def test_listing_still_needs_calls_read_only(placer, owner):
    placer.quote_and_place()
    reader = Placer(owner, scopes=["calls:read"])
    assert reader.get("/v1/calls").json()["data"][0]["quote"].startswith("quo_")
    assert_error(Placer(owner, scopes=["calls:place"]).get("/v1/calls"), 403, "insufficient_scope")
