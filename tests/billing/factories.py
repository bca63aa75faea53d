"""Ledger rows for tests, written through the service so the chain always holds."""

from datetime import datetime, timedelta

from django.utils import timezone

from apps.billing.models import BalanceTransaction
from apps.billing.services import ledger_append

DESCRIPTIONS = {
    "top_up": "Top-up, Visa ending 4242",
    "call": "Call to +44 20 7946 0018, 3 min",
    "number_rental": "Number +1 415 555 0100, monthly rental",
    "transcript": "Transcript of a call, 3 min",
    "refund": "Refund: dropped call",
    "adjustment": "Goodwill credit",
}
AMOUNTS = {"top_up": 2000, "call": -123, "number_rental": -115, "transcript": -9, "refund": 123, "adjustment": 200}
SOURCES = {"call": "call_0123456789abcdefABCDEFGH", "number_rental": "num_0123456789abcdefABCDEFGH"}


def append(user, *, type="top_up", amount=None, livemode=True, source=None, description=None, created=None):
    return ledger_append(
        user=user,
        livemode=livemode,
        amount=AMOUNTS[type] if amount is None else amount,
        type=type,
        source=SOURCES.get(type) if source is None else source,
        description=DESCRIPTIONS[type] if description is None else description,
        created=created,
    )


def ledger(user, types, *, livemode=True, start: datetime | None = None) -> list[BalanceTransaction]:
    """One row per type in ``types``, a minute apart (distinct Unix seconds), oldest first."""
    start = start or timezone.now() - timedelta(days=1)
    return [append(user, type=t, livemode=livemode, created=start + timedelta(minutes=n)) for n, t in enumerate(types)]


def chain_holds(user, livemode=True) -> bool:
    """Oldest first, each ending_balance is the previous one plus the amount, and the balance is the last."""
    from apps.billing.models import Balance

    rows = BalanceTransaction.objects.filter(user=user, livemode=livemode).order_by("created", "id")
    running = 0
    for row in rows:
        running += row.amount
        if row.ending_balance != running:
            return False
    balance = Balance.objects.filter(user=user, livemode=livemode).first()
    return (balance.amount if balance else 0) == running
