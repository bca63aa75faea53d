"""ledger_append under concurrency (PostgreSQL): appends to one account queue on the balance row's lock,
so the ending_balance chain adds up whatever the interleaving, the very first append included."""

import pytest

from apps.billing.models import Balance, BalanceTransaction
from apps.billing.services import ledger_append
from tests.billing.factories import chain_holds
from tests.support.races import postgresql_only, together

pytestmark = [pytest.mark.django_db(transaction=True), postgresql_only]

THREADS = 2
APPENDS = 30


def test_two_writers_on_one_account_keep_the_chain(user):
    def work(n):
        for i in range(APPENDS):
            # One thread credits, the other spends: a lost update would show in the final balance.
            if n == 0:
                ledger_append(user=user, livemode=True, amount=100 + i, type="top_up", source=None, description="t")
            else:
                ledger_append(user=user, livemode=True, amount=-(7 + i), type="call", source="call_x", description="c")

    together(work, THREADS)
    rows = BalanceTransaction.objects.filter(user=user, livemode=True)
    assert rows.count() == THREADS * APPENDS
    expected = sum(100 + i for i in range(APPENDS)) - sum(7 + i for i in range(APPENDS))
    assert Balance.objects.get(user=user, livemode=True).amount == expected
    assert chain_holds(user)
    # Every row's created is distinct, so the list's order is the chain's order.
    assert len(set(rows.values_list("created", flat=True))) == THREADS * APPENDS
    assert Balance.objects.filter(user=user).count() == 1


def test_two_first_appends_make_one_balance_row(user):
    def work(n):
        ledger_append(user=user, livemode=False, amount=500, type="top_up", source=None, description="first")

    together(work, THREADS)
    assert Balance.objects.filter(user=user, livemode=False).count() == 1
    assert sorted(BalanceTransaction.objects.filter(user=user).values_list("ending_balance", flat=True)) == [500, 1000]
    assert chain_holds(user, livemode=False)
