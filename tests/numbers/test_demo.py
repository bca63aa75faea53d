"""apps.numbers.demo.seed for manage.py seed_demo: numbers and caller IDs in one mode, rentals as charges."""

import random
from datetime import UTC, datetime

import pytest

from apps.billing.models import BalanceTransaction
from apps.demo.services import demo_seed
from apps.numbers import demo
from apps.numbers.models import CallerId, Number
from tests.support.factories import UserFactory

from .factories import make_caller_id, make_number

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def seed(user, livemode=True, seed=1):
    return demo.seed(user=user, livemode=livemode, rng=random.Random(seed), now=NOW)


def test_live_mode_gets_numbers_with_the_switch_off_and_one_default_caller_id(user):
    seed(user)
    numbers = list(Number.objects.filter(user=user, livemode=True))
    assert len(numbers) >= 2
    assert all(not n.messages_opt_in for n in numbers)
    assert {n.type for n in numbers} >= {"local", "mobile"}
    assert {n.status for n in numbers} == {"active", "canceled"}
    for number in numbers:
        assert number.number.startswith("+") and number.country
        assert (number.renews_at is None) == (number.status == "canceled")
        if number.renews_at:
            assert number.renews_at > NOW
    caller_ids = list(CallerId.objects.filter(user=user, livemode=True))
    assert len(caller_ids) >= 1 and [c.is_default for c in caller_ids].count(True) == 1


def test_rentals_are_monthly_charges_of_each_number_up_to_now(user):
    charges = seed(user)
    numbers = {n.id: n for n in Number.objects.filter(user=user, livemode=True)}
    assert charges and all(set(c) == {"type", "amount", "source", "description", "created"} for c in charges)
    assert all(c["type"] == "number_rental" and c["amount"] < 0 and c["source"] in numbers for c in charges)
    assert all(c["created"] <= NOW for c in charges)
    assert [c["created"] for c in charges] == sorted(c["created"] for c in charges)
    for number in numbers.values():
        mine = [c for c in charges if c["source"] == number.id]
        assert mine[0]["created"] == number.created  # the first month is paid when it is rented
        assert len({c["amount"] for c in mine}) == 1
        assert "monthly rental" in mine[0]["description"]
    canceled = next(n for n in numbers.values() if n.status == "canceled")
    active = [n for n in numbers.values() if n.status == "active"]
    longest = max(active, key=lambda n: NOW - n.created)
    assert len([c for c in charges if c["source"] == longest.id]) >= 5  # months of rentals
    assert len([c for c in charges if c["source"] == canceled.id]) >= 2


def test_test_mode_is_a_smaller_set_and_kept_apart(user):
    seed(user, livemode=True)
    live = set(Number.objects.filter(user=user).values_list("id", flat=True))
    charges = seed(user, livemode=False)
    test_numbers = Number.objects.filter(user=user, livemode=False)
    assert 1 <= test_numbers.count() < len(live)
    assert set(Number.objects.filter(user=user, livemode=True).values_list("id", flat=True)) == live
    assert {c["source"] for c in charges} == set(test_numbers.values_list("id", flat=True))
    assert CallerId.objects.filter(user=user, livemode=False, is_default=True).count() == 1


def test_seeding_again_replaces_and_the_same_seed_gives_the_same_rows(user):
    make_number(user, "+442071838799")
    make_caller_id(user, "+14155550199", default=True)
    other = make_number(UserFactory(), "+442071838798")
    first_charges = seed(user)
    first = list(Number.objects.filter(user=user).order_by("id").values())
    assert not Number.objects.filter(number="+442071838799").exists()
    assert Number.objects.filter(pk=other.pk).exists()
    assert seed(user) == first_charges
    assert list(Number.objects.filter(user=user).order_by("id").values()) == first
    assert CallerId.objects.filter(user=user, livemode=True, is_default=True).count() == 1
    seed(user, seed=2)
    assert list(Number.objects.filter(user=user).order_by("id").values()) != first


def test_two_accounts_seeded_alike_do_not_collide(user):
    seed(user)
    seed(UserFactory())
    assert Number.objects.count() == 2 * Number.objects.filter(user=user).count()


def test_seed_demo_puts_every_rental_in_the_ledger(user):
    demo_seed(user=user, now=NOW)
    for livemode in (True, False):
        rentals = BalanceTransaction.objects.filter(user=user, livemode=livemode, type="number_rental")
        numbers = set(Number.objects.filter(user=user, livemode=livemode).values_list("id", flat=True))
        assert rentals.exists()
        assert set(rentals.values_list("source", flat=True)) == numbers
