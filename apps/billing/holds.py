"""Holds and the charge of a call (docs/design.md, Phase 3), as parts of the caller's own transaction.

A callback call holds its ``max_amount`` while it is live and is charged its answered time
when it ends, in one ``call`` ledger row, the hold released in the same transaction. The
writes are returned as statements (``apps.core.sql``) so that the calls app sends them
together with its own in one round trip; every function here expects the account's balance
row locked first (``balance_lock``, the ledger's one lock rule), which is what serialises the
holds and charges of one account and mode. A charge is a ledger row, built by the one writer
(apps/billing/ledger.py) and returned with the events it causes.
"""

from datetime import datetime

from django.conf import settings
from django.db import connections, router
from django.db.models import BigIntegerField, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from apps.core.sql import Statement, insert_statement, update_row_statement

from .ledger import LedgerWrites, balance_lock, ledger_entry
from .models import Balance, Hold

__all__ = [
    "balance_amount_expression",
    "balance_lock",
    "charge_build",
    "held_amount_expression",
    "hold_build",
    "hold_release_statement",
]


def held_amount_expression(*, user_id: str, livemode: bool):
    """What the account's live holds set aside, minor units (0 when none), for another query's annotation."""
    holds = (
        Hold.objects.filter(user_id=user_id, livemode=livemode, released_at__isnull=True)
        .order_by()
        .values("user_id")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    return Coalesce(Subquery(holds, output_field=BigIntegerField()), Value(0))


def balance_amount_expression(*, user_id: str, livemode: bool):
    """The account's balance, minor units (0 without a ledger), for another query's annotation."""
    row = Balance.objects.filter(user_id=user_id, livemode=livemode).values("amount")[:1]
    return Coalesce(Subquery(row, output_field=BigIntegerField()), Value(0))


def hold_build(*, user_id: str, livemode: bool, amount: int, source: str, now: datetime) -> tuple[Hold, Statement]:
    """A new hold of ``amount`` for ``source`` and its INSERT."""
    hold = Hold(
        user_id=user_id,
        livemode=livemode,
        created=now,
        amount=amount,
        currency=settings.SERVICE_CURRENCY,
        source=source,
    )
    return hold, insert_statement(hold, _connection())


def hold_release_statement(*, hold_id: str, now: datetime) -> Statement:
    """The UPDATE that releases a hold (a released hold stays released)."""
    return update_row_statement(Hold, hold_id, _connection(), unless_set="released_at", released_at=now)


def charge_build(
    *, balance: Balance, amount: int, type: str, source: str, description: str, now: datetime
) -> LedgerWrites:
    """The ledger row of a charge on the locked ``balance`` (``balance_lock``), as the one writer
    builds it: the row, its writes (the row, the balance) and the events it causes, for the
    caller to send with its own writes and then publish."""
    return ledger_entry(balance=balance, amount=amount, type=type, source=source, description=description, at=now)


def _connection():
    return connections[router.db_for_write(Hold)]
