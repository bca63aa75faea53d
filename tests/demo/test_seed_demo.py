"""manage.py seed_demo (docs/design.md, Phase 2): one existing account, both modes, deterministic, idempotent, and a
ledger whose ending_balance chain adds up."""

import random
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from apps.billing import demo as billing_demo
from apps.billing.models import Balance, BalanceTransaction
from apps.demo.services import demo_seed
from tests.billing.factories import append, chain_holds
from tests.support.factories import UserFactory

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def rows(user, livemode):
    return list(BalanceTransaction.objects.filter(user=user, livemode=livemode).order_by("created", "id"))


def shape(user, livemode):
    """What a run wrote. Ids are random by design (ours and the other apps'): a source is kept as its prefix."""
    return [
        (r.created, r.type, r.amount, r.source.split("_")[0], r.description, r.ending_balance)
        for r in rows(user, livemode)
    ]


def test_an_unknown_account_is_refused_and_nothing_is_written(db):
    with pytest.raises(CommandError, match=r"No account with email nobody@example.com.*createuser"):
        call_command("seed_demo", "--email", "nobody@example.com")
    assert not BalanceTransaction.objects.exists()


def test_both_modes_get_a_ledger_whose_chain_adds_up_and_a_second_run_replaces_it(user):
    out = StringIO()
    call_command("seed_demo", "--email", user.email.upper(), stdout=out)
    for livemode in (True, False):
        assert rows(user, livemode), livemode
        assert chain_holds(user, livemode)
        assert all(r.currency == "usd" for r in rows(user, livemode))
    assert len(rows(user, False)) < len(rows(user, True))  # test mode: a smaller set
    assert "live:" in out.getvalue() and "test:" in out.getvalue()
    first = {m: [(r.type, r.amount, r.description) for r in rows(user, m)] for m in (True, False)}

    call_command("seed_demo", "--email", user.email, stdout=StringIO())
    second = {m: [(r.type, r.amount, r.description) for r in rows(user, m)] for m in (True, False)}
    assert first == second  # replaced, never duplicated
    assert Balance.objects.filter(user=user).count() == 2
    assert chain_holds(user, True) and chain_holds(user, False)


def test_the_same_seed_and_time_give_the_same_data_over_months(user):
    demo_seed(user=user, now=NOW, seed=7)
    first = shape(user, True), shape(user, False)
    live = rows(user, True)
    assert NOW - live[0].created >= timedelta(days=150)
    assert live[-1].created <= NOW
    assert {r.type for r in live} >= {"top_up", "adjustment"}

    demo_seed(user=user, now=NOW, seed=7)
    assert (shape(user, True), shape(user, False)) == first
    demo_seed(user=user, now=NOW, seed=8)
    assert (shape(user, True), shape(user, False)) != first


def test_it_replaces_the_accounts_rows_keeps_other_accounts_and_is_all_or_nothing(user, monkeypatch):
    append(user, amount=99999)
    other = UserFactory()
    kept = append(other, amount=4242)
    demo_seed(user=user, now=NOW)
    assert not BalanceTransaction.objects.filter(user=user, amount=99999).exists()
    assert chain_holds(user, True)
    assert list(BalanceTransaction.objects.filter(user=other)) == [kept]
    assert Balance.objects.get(user=other).amount == 4242

    before = shape(user, True), shape(user, False)

    def broken(**kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(billing_demo, "_timeline", broken)
    with pytest.raises(RuntimeError):
        demo_seed(user=user, now=NOW + timedelta(days=1))
    assert (shape(user, True), shape(user, False)) == before


# --- apps.billing.demo.seed with the other apps' charges -----------------------------------


def charges(now, n=60):
    """What the numbers and calls steps return: calls with transcripts, and monthly rentals."""
    made = []
    for i in range(n):
        when = now - timedelta(days=170) + timedelta(hours=67 * i)
        made.append(
            {
                "type": "call",
                "amount": -(40 + (i * 37) % 400),
                "source": f"call_{i:024d}",
                "description": f"Call to +44 20 7946 {i:04d}",
                "created": when,
            }
        )
        if i % 3 == 0:
            made.append(
                {
                    "type": "transcript",
                    "amount": -12,
                    "source": f"call_{i:024d}",
                    "description": "Transcript",
                    "created": when + timedelta(seconds=30),
                }
            )
    for month in range(6):
        made.append(
            {
                "type": "number_rental",
                "amount": -115,
                "source": "num_000000000000000000000001",
                "description": "Number +1 415 555 0100, monthly rental",
                "created": now - timedelta(days=175 - 30 * month),
            }
        )
    made.append({"type": "call", "amount": 0, "source": "call_free", "description": "Free call", "created": now})
    return made


def seed(user, given, livemode=True, rng_seed=1):
    billing_demo.seed(user=user, livemode=livemode, rng=random.Random(rng_seed), now=NOW, charges=given)
    return rows(user, livemode)


def test_every_charge_given_is_written_in_time_order(user):
    given = charges(NOW)
    written = seed(user, given)
    spent = [(r.type, r.amount, r.source, r.description) for r in written if r.amount < 0]
    expected = sorted((c for c in given if c["amount"]), key=lambda c: c["created"])
    assert spent == [(c["type"], c["amount"], c["source"], c["description"]) for c in expected]
    assert [r.created for r in written] == sorted(r.created for r in written)
    assert len({r.created for r in written}) == len(written)
    assert chain_holds(user)


def test_zero_charges_are_left_out(user):
    assert not any(r.source == "call_free" for r in seed(user, charges(NOW)))


def test_top_ups_keep_the_balance_at_or_above_the_threshold(user, settings):
    written = seed(user, charges(NOW))
    assert all(r.ending_balance >= settings.LOW_BALANCE_THRESHOLD for r in written if r.type in ("call", "transcript"))
    assert any(r.description.startswith("Auto-recharge") for r in written)
    assert min(r.ending_balance for r in written) >= 0


def test_a_refund_credits_back_one_call_and_names_it(user):
    written = seed(user, charges(NOW))
    refunds = [r for r in written if r.type == "refund"]
    assert len(refunds) == 1
    refund = refunds[0]
    refunded = BalanceTransaction.objects.get(pk=refund.source)
    assert refunded.type == "call" and refunded.user_id == user.pk
    assert refund.amount == -refunded.amount > 0
    assert refund.created > refunded.created
    assert refunded.description in refund.description


def test_signs_follow_the_rules(user):
    for r in seed(user, charges(NOW)):
        if r.type in ("top_up", "refund"):
            assert r.amount > 0
        elif r.type in ("call", "transcript", "number_rental"):
            assert r.amount < 0
        else:
            assert r.type == "adjustment" and r.amount != 0


def test_modes_are_seeded_apart(user):
    seed(user, charges(NOW), livemode=True)
    live = shape(user, True)
    seed(user, charges(NOW)[:5], livemode=False)
    assert shape(user, True) == live
    assert chain_holds(user, False)


def test_charges_older_than_the_window_move_its_start(user):
    old = [
        {
            "type": "call",
            "amount": -50,
            "source": "call_old",
            "description": "Old",
            "created": NOW - timedelta(days=400),
        }
    ]
    written = seed(user, old)
    assert written[0].type == "top_up" and written[0].created < old[0]["created"]
    assert chain_holds(user)


def test_amounts_use_the_currencys_own_digits(user, settings):
    settings.SERVICE_CURRENCY = "jpy"
    settings.LOW_BALANCE_THRESHOLD = 500  # yen
    written = seed(user, [])
    top_ups = [r.amount for r in written if r.type == "top_up"]
    assert all(a in (10, 20, 25, 50) for a in top_ups)  # whole yen: no minor digits
    assert {r.currency for r in written} == {"jpy"}
