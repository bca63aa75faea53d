"""The test balance's top-up (apps.billing.public.top_up_test_balance): the test balance only, a
bounded amount, once per form however the two sends of it interleave (PostgreSQL for the race)."""

import pytest

from apps.billing.models import Balance, BalanceTransaction
from apps.billing.public import TopUpRefused, top_up_choices, top_up_test_balance
from tests.billing.factories import append, chain_holds
from tests.support.races import postgresql_only, together

FORM = "form-0123456789abcdef"


@pytest.mark.django_db
def test_the_test_balance_only_and_once_per_form(user):
    append(user, type="top_up", amount=2500)
    amount = top_up_choices()[0]
    row, written = top_up_test_balance(user=user, amount=amount, request_id=FORM)
    again, written_again = top_up_test_balance(user=user, amount=amount, request_id=FORM)
    assert written and not written_again and again.pk == row.pk
    assert (row.livemode, row.type, row.amount) == (False, "top_up", amount)
    assert Balance.objects.get(user=user, livemode=True).amount == 2500
    assert Balance.objects.get(user=user, livemode=False).amount == amount
    assert chain_holds(user, livemode=False)


@pytest.mark.django_db
def test_an_amount_not_offered_writes_nothing(user):
    for amount in (0, -500, 1, top_up_choices()[-1] + 1):
        with pytest.raises(TopUpRefused):
            top_up_test_balance(user=user, amount=amount, request_id=FORM)
    assert not BalanceTransaction.objects.exists()


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_two_sends_of_one_form_at_once_credit_once(user):
    append(user, type="top_up", amount=100, livemode=False)  # the balance row exists: both wait on its lock

    sends = together(lambda _i: top_up_test_balance(user=user, amount=top_up_choices()[0], request_id=FORM), 2)

    assert sorted(written for _row, written in sends) == [False, True]
    assert BalanceTransaction.objects.filter(user=user, livemode=False).count() == 2
    assert chain_holds(user, livemode=False)
