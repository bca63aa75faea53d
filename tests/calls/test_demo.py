"""apps/calls/demo.py: a few hundred calls over months in live mode, fewer in test mode, both
directions, many with contacts, some live, some transcribed; charges that match the API's amounts."""

import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from types import SimpleNamespace

import phonenumbers
import pytest

from apps.calls import demo, demo_transcripts
from apps.calls.models import Call, Transcript
from apps.calls.serializers import usage_of
from tests.calls.factories import CallFactory

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def rate_for(e164):
    """The deck as the rates app answers it: Japan has no rate in this one."""
    if e164.startswith("+81"):
        return None
    cheap = e164.startswith("+1")
    return SimpleNamespace(
        prefix=e164[1:3],
        country="XX",
        currency="usd",
        per_minute=Decimal("0.0125") if cheap else Decimal("0.045"),
        first_seconds=60 if cheap else 30,
        next_seconds=60 if cheap else 6,
    )


def contact(n, name, *numbers):
    phones = [SimpleNamespace(number=number) for number in numbers]
    return SimpleNamespace(id=f"ct_demo{n}", name=name, phone_numbers=SimpleNamespace(all=lambda: phones))


CONTACTS = [
    contact(1, "Ana Lopez", "+34612345678"),
    contact(2, "Ben Okafor", "+447700900123", "+442071838750"),
    contact(3, "Chloé Martin", "+33612345678"),
    contact(4, "Dev Patel", "+14155550142"),
]


def seed(user, livemode=True, seed_value=1):
    return demo.seed(
        user=user,
        livemode=livemode,
        rng=random.Random(seed_value),
        now=NOW,
        contacts=CONTACTS,
        rate_for=rate_for,
    )


def test_live_mode_has_a_few_hundred_calls_over_months_both_directions(owner):
    seed(owner)
    calls = Call.objects.filter(user=owner, livemode=True)
    assert 250 <= calls.count() <= 330
    oldest = calls.order_by("created").first().created
    assert NOW - oldest > timedelta(days=120)
    directions = Counter(calls.values_list("direction", flat=True))
    assert directions["inbound"] > 50 and directions["outbound"] > 150
    with_contact = calls.exclude(contact_id="").count()
    assert with_contact / calls.count() > 0.5
    assert set(calls.exclude(contact_id="").values_list("contact_id", flat=True)) <= {c.id for c in CONTACTS}


def test_some_calls_are_live_and_some_transcribed(owner):
    seed(owner)
    statuses = Counter(Call.objects.filter(user=owner, livemode=True).values_list("status", flat=True))
    assert {"ringing_you", "ringing", "in_progress"} <= set(statuses)
    assert {"completed", "no_answer", "busy"} <= set(statuses)
    transcripts = Transcript.objects.filter(call__user=owner, livemode=True)
    assert 10 <= transcripts.count() <= 80
    assert all(t.call.status == "completed" for t in transcripts)
    assert {t.language for t in transcripts} >= {"en"}


def test_each_summary_is_its_own_calls_in_the_language_of_whom_it_was_with(owner):
    """No two demo calls share a reference number, and a call with a Spanish or German number is
    summarised in Spanish or German (what a real transcript of that call would be)."""
    seed(owner)
    seed(owner, livemode=False)
    references = [r for t in Transcript.objects.filter(call__user=owner) for r in t.reference_numbers]
    assert references and len(references) == len(set(references))
    for transcript in Transcript.objects.filter(call__user=owner).select_related("call"):
        call = transcript.call
        other = call.to_number if call.direction == "outbound" else call.from_number
        region = phonenumbers.region_code_for_number(phonenumbers.parse(other, None))
        assert transcript.language == demo_transcripts.LANGUAGE_OF_COUNTRY.get(region, "en"), (
            other,
            transcript.language,
        )


def test_test_mode_is_smaller_and_separate(owner):
    seed(owner, livemode=True)
    live_ids = set(Call.objects.filter(livemode=True).values_list("id", flat=True))
    seed(owner, livemode=False)
    test = Call.objects.filter(user=owner, livemode=False)
    assert 20 <= test.count() <= 45
    assert test.filter(status="in_progress").exists()
    assert set(Call.objects.filter(livemode=True).values_list("id", flat=True)) == live_ids


def test_numbers_are_e164_and_outbound_calls_carry_the_decks_rate(owner):
    seed(owner)
    for call in Call.objects.filter(user=owner):
        for number in (call.from_number, call.to_number):
            assert phonenumbers.is_possible_number(phonenumbers.parse(number, None)), number
        if call.direction == "outbound":
            assert not call.to_number.startswith("+81")  # no rate, not callable
            rate = rate_for(call.to_number)
            assert call.per_minute_amount_decimal == rate.per_minute * 100
            assert (call.first_seconds, call.next_seconds) == (rate.first_seconds, rate.next_seconds)
        else:
            assert call.per_minute_amount_decimal == 0


def test_charges_are_the_amounts_the_api_shows(owner):
    charges = seed(owner)
    calls = {c.id: c for c in Call.objects.filter(user=owner, livemode=True)}
    call_charges = [c for c in charges if c["type"] == "call"]
    expected = {
        call.id: usage_of(call, NOW).amount
        for call in calls.values()
        if call.status == "completed" and call.direction == "outbound"
    }
    assert {c["source"]: -c["amount"] for c in call_charges} == expected
    assert all(c["amount"] < 0 and c["created"] == calls[c["source"]].ended_at for c in call_charges)
    assert all(c["description"].startswith("Call to +") for c in call_charges)
    transcript_charges = [c for c in charges if c["type"] == "transcript"]
    transcribed = set(Transcript.objects.filter(call__user=owner).values_list("call_id", flat=True))
    assert {c["source"] for c in transcript_charges} == transcribed
    assert all(c["amount"] == -5 for c in transcript_charges)
    assert {c["type"] for c in charges} == {"call", "transcript"}


def test_the_same_seed_gives_the_same_calls_and_seeding_again_replaces(owner):
    def fingerprint():
        rows = Call.objects.filter(user=owner).order_by("created", "to_number")
        return list(rows.values_list("id", "created", "direction", "status", "from_number", "to_number", "duration"))

    first_charges = seed(owner)
    first = fingerprint()
    count = Call.objects.count()
    again = seed(owner)
    assert fingerprint() == first
    assert Call.objects.count() == count  # replaced, never duplicated
    assert again == first_charges  # the same sources too: ids are reproducible
    seed(owner, seed_value=2)
    assert fingerprint() != first


def test_another_accounts_calls_are_left_alone(owner, stranger):
    theirs = CallFactory(user=stranger)
    seed(owner)
    assert Call.objects.filter(pk=theirs.pk).exists()


def test_two_accounts_seeded_alike_get_ids_of_their_own(owner, stranger):
    seed(owner)
    seed(stranger)  # the same seed: the same calls, never the same ids
    assert Call.objects.filter(user=stranger).count() == Call.objects.filter(user=owner).count()
    mine = set(Call.objects.filter(user=owner).values_list("id", flat=True))
    assert not mine & set(Call.objects.filter(user=stranger).values_list("id", flat=True))
    assert all(i.startswith("call_") and len(i) == 29 for i in mine)


def test_without_contacts_or_rates_it_still_seeds(owner):
    charges = demo.seed(
        user=owner, livemode=True, rng=random.Random(1), now=NOW, contacts=[], rate_for=lambda e164: None
    )
    calls = Call.objects.filter(user=owner)
    assert calls.exists()
    assert set(calls.values_list("direction", flat=True)) == {"inbound"}  # nothing is callable
    assert not charges or {c["type"] for c in charges} == {"transcript"}


def test_the_seeded_calls_read_through_the_api(owner, caller, summaries_on):
    seed(owner)
    page = caller.get("/v1/calls", {"limit": 100, "expand[]": ["transcript"]})
    assert page.status_code == 200, page.content
    assert len(page.json()["data"]) == 100
    live = caller.get("/v1/calls", {"status": "in_progress"}).json()["data"]
    assert live and live[0]["amount"] is not None
