"""seed_demo on a fresh database: calls in both directions in the numbers docs/design.md gives, and
live calls that go on and end within minutes instead of staying live for hours.

docs/design.md, "Phase 2" (demo data): live mode "a few hundred calls over months, both
directions, many to or from contacts, some live", test mode "a smaller set of each".
Its "Durable work": what must happen later is a row a worker runs when due; "The carrier
boundary": a read of a live simulated call applies the events already due. The clock is
``timezone.now()``, moved by the test (tests/calls/callbacks.py ``frozen_clock``).
"""

from datetime import timedelta
from itertools import pairwise

import pytest
from django.core.management import call_command
from django.test import Client

from apps.billing.models import BalanceTransaction
from apps.calls import demo
from apps.calls.models import LIVE_STATUSES, Call
from apps.jobs.public import Job, JobStatus, run_due
from apps.rates.models import Rate
from tests.support.factories import UserFactory, make_api_key

pytestmark = pytest.mark.django_db

A_FEW_MINUTES = timedelta(minutes=5)


@pytest.fixture
def seeded(clock):
    """An account seeded by seed_demo on an empty rate deck (a fresh migrate, no import_rates)."""
    assert not Rate.objects.exists()
    user = UserFactory(email="demo@example.com")
    call_command("seed_demo", "--email", user.email)
    return user


def calls(user, livemode):
    return Call.objects.filter(user=user, livemode=livemode)


def still_live(user):
    return list(Call.objects.filter(user=user, status__in=sorted(LIVE_STATUSES)))


def test_both_directions_in_both_modes_in_the_designs_numbers(seeded):
    assert Rate.objects.count() > 1000  # it brought the demo deck
    live, test = calls(seeded, True), calls(seeded, False)
    assert 200 <= live.count() < 1000  # a few hundred
    assert live.filter(direction="outbound").count() >= 100
    assert live.filter(direction="inbound").count() >= 50
    assert 0 < test.count() < live.count() / 2  # a smaller set
    assert test.filter(direction="outbound").count() >= 5
    assert test.filter(direction="inbound").count() >= 5
    # Outbound calls carry a rate of the deck, not the free inbound one.
    assert not live.filter(direction="outbound", per_minute_amount_decimal=0).exists()


def test_some_calls_are_live_right_after_seeding(seeded):
    assert {call.status for call in still_live(seeded)} >= {"ringing_you", "ringing", "in_progress"}


def test_the_worker_ends_every_live_call_within_minutes_and_charges_it(seeded, clock):
    live = {call.id: call for call in still_live(seeded)}
    before = {row.source for row in BalanceTransaction.objects.filter(user=seeded, type="call")}

    clock.tick(A_FEW_MINUTES.total_seconds())
    run_due()

    assert still_live(seeded) == []
    for call in Call.objects.filter(pk__in=live):
        assert call.status == "completed", call.id
        assert call.end_reason in ("callee_hung_up", "you_hung_up")
        assert call.answered_at and call.ended_at and call.duration > 0
        assert call.ended_at <= clock.at
    # Each completed outbound call is charged once, its amount by the billing rule (what the API shows).
    for livemode in (True, False):
        caller = Client(
            HTTP_AUTHORIZATION=f"Bearer {make_api_key(seeded, scopes=['calls:read'], livemode=livemode)[1]}"
        )
        for call_id in (i for i, c in live.items() if c.livemode == livemode and c.direction == "outbound"):
            shown = caller.get(f"/v1/calls/{call_id}").json()
            charges = BalanceTransaction.objects.filter(user=seeded, type="call", source=call_id)
            assert call_id not in before
            assert [row.amount for row in charges] == [-shown["amount"]], call_id
            assert shown["amount"] > 0
    # The ledger's chain still adds up in each mode.
    for livemode in (True, False):
        rows = list(BalanceTransaction.objects.filter(user=seeded, livemode=livemode).order_by("created", "id"))
        assert all(b.ending_balance == a.ending_balance + b.amount for a, b in pairwise(rows))


def test_without_a_worker_a_read_moves_a_live_call_on(seeded, clock):
    (ringing_you,) = [call for call in still_live(seeded) if call.livemode and call.status == "ringing_you"]
    caller = Client(HTTP_AUTHORIZATION=f"Bearer {make_api_key(seeded, scopes=['calls:read'])[1]}")

    clock.tick(A_FEW_MINUTES.total_seconds())
    shown = caller.get(f"/v1/calls/{ringing_you.id}").json()

    assert shown["status"] == "completed"
    assert shown["status_transitions"]["ringing_at"] and shown["answered_at"] and shown["ended_at"]


def test_seeding_again_replaces_the_live_calls_and_the_first_seedings_work_moves_nothing(seeded, clock):
    first = {call.id for call in still_live(seeded)}
    clock.tick(2)
    call_command("seed_demo", "--email", seeded.email)
    again = {call.id: call for call in still_live(seeded)}
    assert set(again) == first  # the same seed, the same ids: new rows

    # The first seeding's events, whenever a worker runs them, leave the new rows as they are.
    waiting = Job.objects.filter(kind=demo.EVENT_JOB, status=JobStatus.READY)
    stale = [job for job in waiting if job.payload["created"] != again[job.payload["call"]].created.isoformat()]
    assert stale
    for job in stale:
        demo.play(job.payload)
    assert {call.id: call.status for call in still_live(seeded)} == {i: c.status for i, c in again.items()}

    clock.tick(A_FEW_MINUTES.total_seconds())
    run_due()
    assert still_live(seeded) == []
