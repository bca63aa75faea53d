"""ledger_append: the sign rules, the ending_balance chain, the order of rows, and refusals that write nothing."""

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.billing.models import Balance, BalanceTransaction
from apps.billing.services import LedgerError, ledger_append
from apps.credentials.principal import Principal
from tests.billing.factories import append, chain_holds, ledger
from tests.support.factories import UserFactory

pytestmark = pytest.mark.django_db

ALL_TYPES = ["top_up", "call", "transcript", "number_rental", "refund", "adjustment"]


def test_each_row_carries_the_balance_after_it(user):
    rows = ledger(user, ["top_up", "call", "transcript", "number_rental", "refund", "adjustment"])
    assert [r.ending_balance for r in rows] == [2000, 1877, 1868, 1753, 1876, 2076]
    assert Balance.objects.get(user=user, livemode=True).amount == 2076
    assert chain_holds(user)


def test_a_row_takes_the_account_currency_and_a_txn_id(user, settings):
    row = append(user)
    assert row.currency == settings.SERVICE_CURRENCY == "usd"
    assert row.id.startswith("txn_") and len(row.id) == 28


@pytest.mark.parametrize(
    ("type", "amount"),
    [
        ("top_up", 1),
        ("refund", 1),
        ("call", -1),
        ("number_rental", -1),
        ("transcript", -1),
        ("adjustment", 1),
        ("adjustment", -1),
    ],
)
def test_allowed_signs(user, type, amount):
    assert append(user, type=type, amount=amount).amount == amount


@pytest.mark.parametrize(
    ("type", "amount"),
    [
        ("top_up", -1),
        ("top_up", 0),
        ("refund", -5),
        ("call", 5),
        ("call", 0),
        ("number_rental", 1),
        ("transcript", 2),
        ("adjustment", 0),
    ],
)
def test_wrong_signs_are_refused_and_write_nothing(user, type, amount):
    with pytest.raises(LedgerError):
        append(user, type=type, amount=amount)
    assert not BalanceTransaction.objects.exists()
    assert not Balance.objects.exists()


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "bonus"},
        {"amount": 1.5},
        {"amount": True},
        {"amount": "100"},
        {"description": "x" * 256},
        {"source": "x" * 65},
        {"source": ""},
    ],
)
def test_malformed_rows_are_refused(user, bad):
    fields = {"type": "top_up", "amount": 100, "source": None, "description": "Top-up", **bad}
    with pytest.raises(LedgerError):
        ledger_append(user=user, livemode=True, **fields)
    assert not BalanceTransaction.objects.exists()


def test_the_database_refuses_a_wrong_sign_too(user):
    # Belt and braces for any write that bypasses the service.
    with pytest.raises(IntegrityError), transaction.atomic():
        BalanceTransaction.objects.create(
            user=user, livemode=True, created=timezone.now(), amount=500, currency="usd", type="call", ending_balance=0
        )


def test_modes_have_separate_balances(user):
    append(user, amount=1000, livemode=True)
    append(user, amount=300, livemode=False)
    append(user, type="call", amount=-100, livemode=False)
    assert Balance.objects.get(user=user, livemode=True).amount == 1000
    assert Balance.objects.get(user=user, livemode=False).amount == 200
    assert chain_holds(user, True) and chain_holds(user, False)


def test_accounts_have_separate_balances(user):
    other = UserFactory()
    append(user, amount=1000)
    append(other, amount=50)
    assert append(user, type="call", amount=-10).ending_balance == 990
    assert append(other, type="call", amount=-10).ending_balance == 40


def test_a_balance_may_go_below_zero(user):
    # The ledger records what happened (a call that outlasted the credit); refusing spends is the caller's job.
    append(user, amount=100)
    assert append(user, type="call", amount=-150).ending_balance == -50


def test_rows_are_strictly_later_than_the_one_before_even_if_the_clock_is_not(user, monkeypatch):
    frozen = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: frozen)
    rows = [append(user) for _ in range(3)]
    assert rows[0].created == frozen
    assert rows[0].created < rows[1].created < rows[2].created
    newest_first = list(BalanceTransaction.objects.filter(user=user).order_by("-created", "-id"))
    assert newest_first == rows[::-1]


def test_an_explicit_created_must_follow_the_newest_row(user):
    now = timezone.now()
    append(user, created=now)
    for when in (now, now - timedelta(seconds=1)):
        with pytest.raises(LedgerError, match="later"):
            append(user, created=when)
    assert BalanceTransaction.objects.count() == 1
    assert append(user, created=now + timedelta(microseconds=1)).ending_balance == 4000


def test_a_partial_user_is_enough(user):
    # A cached credential's principal carries a User with only a few fields loaded.
    partial = type(user).objects.only("id").get(pk=user.pk)
    principal = Principal(kind="api_key", user=partial, credential_id="key_x", scopes=frozenset())
    assert append(principal.user).user_id == user.pk


def test_the_source_is_kept_and_none_stays_none(user):
    assert append(user, type="call", source="call_abc").source == "call_abc"
    row = append(user, type="adjustment")
    assert BalanceTransaction.objects.get(pk=row.pk).source == ""  # stored empty; the API shows null


def test_deleting_an_account_with_a_ledger_is_refused(user):
    from django.db.models import ProtectedError

    append(user)
    with pytest.raises(ProtectedError):
        user.delete()


def test_crossing_the_low_mark_publishes_balance_low_once(db, settings):
    from apps.billing.services import ledger_append
    from apps.webhooks.models import Event
    from tests.support.factories import UserFactory

    settings.LOW_BALANCE_THRESHOLD = 500
    user = UserFactory()
    ledger_append(user=user, livemode=False, amount=1000, type="top_up", source=None, description="Top-up")
    ledger_append(user=user, livemode=False, amount=-400, type="adjustment", source=None, description="Down to 600")
    assert not Event.objects.exists()
    ledger_append(user=user, livemode=False, amount=-200, type="adjustment", source=None, description="Down to 400")
    ledger_append(user=user, livemode=False, amount=-100, type="adjustment", source=None, description="Still low")
    [event] = Event.objects.all()
    assert (event.type, event.livemode, event.user_id) == ("balance.low", False, user.pk)
    assert event.data == {"object": "balance", "amount": 400, "currency": "usd"}
    ledger_append(user=user, livemode=False, amount=1000, type="top_up", source=None, description="Top-up")
    ledger_append(user=user, livemode=False, amount=-1000, type="adjustment", source=None, description="Low again")
    assert Event.objects.count() == 2
