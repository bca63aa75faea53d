"""Holds and the charge of a call (docs/design.md, Phase 3), as parts of the caller's own transaction.

A callback call holds its ``max_amount`` while it is live and is charged its answered time
when it ends, in one ``call`` ledger row, the hold released in the same transaction. The
writes are returned as statements (``apps.core.sql``) so that the calls app sends them
together with its own in one round trip; every function here expects the account's balance
row locked first (``balance_lock``), which is what serialises the holds and charges of one
account and mode.
"""

from datetime import datetime

from django.conf import settings
from django.db import connections, router
from django.db.models import BigIntegerField, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from apps.core.sql import Statement, insert_statement, update_row_statement

from .models import Balance, BalanceTransaction, Hold
from .services import TICK, _check, balance_publish_if_low


def balance_lock(*, user_id: str, livemode: bool) -> Balance | None:
    """The account's balance row, locked until the end of the transaction; None when it has never
    had a ledger row (a balance of 0, which holds nothing)."""
    locked = Balance.objects.select_for_update().filter(user_id=user_id, livemode=livemode)
    return locked.only("id", "user_id", "livemode", "amount", "currency", "updated").first()


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
) -> tuple[BalanceTransaction, list[Statement]]:
    """The ledger row of a charge on the locked ``balance`` and its writes (the row, the balance).

    The same chain rules as ``services.ledger_append``: ``created`` is moved just past the
    newest row, ``ending_balance`` is the balance plus ``amount``.
    """
    _check(amount=amount, type=type, source=source, description=description)
    created = now if balance.updated is None or now > balance.updated else balance.updated + TICK
    row = BalanceTransaction(
        user_id=balance.user_id,
        livemode=balance.livemode,
        created=created,
        amount=amount,
        currency=balance.currency,
        type=type,
        source=source,
        description=description,
        ending_balance=balance.amount + amount,
    )
    connection = _connection()
    writes = [
        insert_statement(row, connection),
        update_row_statement(Balance, balance.pk, connection, amount=row.ending_balance, updated=created),
    ]
    balance_publish_if_low(balance=balance, before=balance.amount, after=row.ending_balance)
    balance.amount, balance.updated = row.ending_balance, created
    return row, writes


def _connection():
    return connections[router.db_for_write(Hold)]
