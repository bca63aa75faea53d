"""Demo ledger for ``manage.py seed_demo`` (apps/demo): months of plausible rows in one mode.

Writes the charges it is given (calls, transcripts, number rentals, from the
other apps' demo data) among top-ups that keep the balance plausible, a refund
of one call and a goodwill adjustment, all through ``ledger_append`` and in time
order, so the ``ending_balance`` chain adds up exactly as it does in service.
Deterministic for a given ``rng`` and ``now``.
"""

from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings

from apps.core.money import display, to_minor

from .ledger import DESCRIPTION_MAX, TICK, ledger_append, ledger_clear_for_demo
from .models import TransactionType

MONTHS = {True: 6, False: 1}  # live: months of history; test mode: a smaller set
CARD = "Visa ending 4242"


def seed(*, user, livemode: bool, rng, now: datetime, charges: list[dict]) -> None:
    """Replace the account's ledger in ``livemode`` with demo rows ending at ``now``.

    ``charges``: ``{"type", "amount" (negative minor units), "source", "description", "created"}``;
    charges of 0 are left out (nothing to record).
    """
    ledger_clear_for_demo(user_id=user.pk, livemode=livemode)
    writer = _Writer(user=user, livemode=livemode)
    for event in _timeline(rng=rng, now=now, livemode=livemode, charges=charges):
        writer.write(rng, event)


def _minor(major: str) -> int:
    return int(to_minor(Decimal(major), settings.SERVICE_CURRENCY))


def _timeline(*, rng, now: datetime, livemode: bool, charges: list[dict]) -> list[dict]:
    """Every row but the top-ups that charges call for, as events sorted by time."""
    charges = sorted((c for c in charges if c["amount"] != 0), key=lambda c: c["created"])
    start = now - timedelta(days=30 * MONTHS[livemode])
    if charges and charges[0]["created"] <= start:
        start = charges[0]["created"] - timedelta(hours=2)
    span = (now - start).total_seconds()

    def at(fraction: float) -> datetime:
        return start + timedelta(seconds=span * fraction)

    opening = _minor(rng.choice(["20", "25", "50"]) if livemode else "10")
    events = [_top_up(start, opening, "Top-up")]
    if livemode:
        # A user topping up by hand now and then, besides the automatic recharges.
        for n in range(MONTHS[livemode] // 2):
            fraction = (n + rng.uniform(0.6, 1.4)) / (MONTHS[livemode] // 2 + 1)
            events.append(_top_up(at(fraction), _minor(rng.choice(["10", "20", "25"])), "Top-up"))
    events.append(
        {
            "created": at(rng.uniform(0.3, 0.8)),
            "type": TransactionType.ADJUSTMENT,
            "amount": _minor("2"),
            "source": None,
            "description": "Goodwill credit: poor audio reported on a call",
        }
    )
    events.extend({**charge, "charge": charge} for charge in charges)
    calls = [c for c in charges if c["type"] == TransactionType.CALL]
    if calls:
        refunded = rng.choice(calls)
        when = min(refunded["created"] + timedelta(hours=rng.uniform(2, 48)), now)
        if when > refunded["created"]:
            events.append(
                {
                    "created": when,
                    "type": TransactionType.REFUND,
                    "amount": -refunded["amount"],
                    "refunds": refunded,
                    "description": f"Refund: {refunded['description']} (dropped call)"[:DESCRIPTION_MAX],
                }
            )
    return sorted(events, key=lambda e: e["created"])


def _top_up(created: datetime, amount: int, what: str) -> dict:
    return {
        "created": created,
        "type": TransactionType.TOP_UP,
        "amount": amount,
        "source": None,
        "description": f"{what}, {CARD}",
    }


class _Writer:
    """Appends events in order, recharging before a charge would take the balance below the threshold."""

    def __init__(self, *, user, livemode: bool):
        self.user, self.livemode = user, livemode
        self.balance = 0
        self.last: datetime | None = None
        self.written: dict[int, str] = {}  # id(charge given) -> its txn id, for a refund's source

    def write(self, rng, event: dict) -> None:
        if "charge" in event and self.balance + event["amount"] < settings.LOW_BALANCE_THRESHOLD:
            needed = settings.LOW_BALANCE_THRESHOLD - (self.balance + event["amount"])
            step = _minor("5")
            amount = max(_minor(rng.choice(["20", "25", "50"])), -(-needed // step) * step)
            threshold = display(settings.LOW_BALANCE_THRESHOLD, settings.SERVICE_CURRENCY)
            before = event["created"] - timedelta(minutes=rng.uniform(1, 30))
            self._append(_top_up(before, amount, f"Auto-recharge (balance below {threshold})"))
        source = self.written[id(event["refunds"])] if "refunds" in event else event.get("source")
        row = self._append({**event, "source": source})
        if "charge" in event:
            self.written[id(event["charge"])] = row.id

    def _append(self, event: dict):
        # Strictly later than the row before: the list order is the chain's order.
        created = event["created"] if self.last is None else max(event["created"], self.last + TICK)
        row = ledger_append(
            user=self.user,
            livemode=self.livemode,
            amount=event["amount"],
            type=event["type"],
            source=event["source"],
            description=event["description"],
            created=created,
        )
        self.balance, self.last = row.ending_balance, created
        return row
