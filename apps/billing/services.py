"""Writes of the ledger: every movement of a balance goes through ``ledger_append``."""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.webhooks.public import publish

from .models import CREDIT_TYPES, DEBIT_TYPES, Balance, BalanceTransaction, TransactionType

DESCRIPTION_MAX = BalanceTransaction._meta.get_field("description").max_length
SOURCE_MAX = BalanceTransaction._meta.get_field("source").max_length
# Two rows of one account never share a ``created``: the list's order is the chain's order.
TICK = timedelta(microseconds=1)


class LedgerError(ValueError):
    """A row the ledger refuses (wrong sign, unknown type, out of order); nothing is written."""


def ledger_append(
    *,
    user,
    livemode: bool,
    amount: int,
    type: str,
    source: str | None,
    description: str,
    created: datetime | None = None,
) -> BalanceTransaction:
    """Append one row to the account's ledger in ``livemode`` and move its balance, atomically.

    The balance row is locked (SELECT ... FOR UPDATE) before the previous balance is
    read, so concurrent appends to one account queue up and each row's
    ``ending_balance`` is the previous row's plus its ``amount``. ``created`` defaults
    to now, moved just past the newest row if the clock says otherwise; a ``created``
    given explicitly (seed data, imports) must be later than the newest row.
    ``user`` may be a partial User: only its primary key is read.
    """
    _check(amount=amount, type=type, source=source, description=description)
    with transaction.atomic():
        balance = _locked_balance(user_id=user.pk, livemode=livemode)
        if created is None:
            created = timezone.now()
            if balance.updated is not None and created <= balance.updated:
                created = balance.updated + TICK
        elif balance.updated is not None and created <= balance.updated:
            raise LedgerError(f"created must be later than the newest row ({balance.updated.isoformat()}).")
        row = BalanceTransaction.objects.create(
            user_id=user.pk,
            livemode=livemode,
            created=created,
            amount=amount,
            currency=balance.currency,
            type=type,
            source=source or "",
            description=description,
            ending_balance=balance.amount + amount,
        )
        Balance.objects.filter(pk=balance.pk).update(amount=row.ending_balance, updated=created)
        balance_publish_if_low(balance=balance, before=balance.amount, after=row.ending_balance)
    return row


def balance_publish_if_low(*, balance, before: int, after: int) -> None:
    """``balance.low`` when a change takes the balance from at or above the low mark to below it,
    in the change's transaction (one event a crossing, none while it stays low)."""
    from .serializers import is_low

    if is_low(after) and not is_low(before):
        publish(
            balance.user_id,
            "balance.low",
            {"object": "balance", "amount": after, "currency": balance.currency},
            livemode=balance.livemode,
        )


def _check(*, amount, type, source, description) -> None:
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise LedgerError("amount must be an integer number of minor units.")
    if type not in TransactionType.values:
        raise LedgerError(f"type must be one of {', '.join(TransactionType.values)}.")
    if type in CREDIT_TYPES and amount <= 0:
        raise LedgerError(f"A {type} credits the balance: its amount must be positive.")
    if type in DEBIT_TYPES and amount >= 0:
        raise LedgerError(f"A {type} spends from the balance: its amount must be negative.")
    if amount == 0:
        raise LedgerError("An adjustment of 0 changes nothing.")
    if source is not None and (not isinstance(source, str) or not 0 < len(source) <= SOURCE_MAX):
        raise LedgerError(f"source must be an id of at most {SOURCE_MAX} characters, or None.")
    if not isinstance(description, str) or len(description) > DESCRIPTION_MAX:
        raise LedgerError(f"description must be text of at most {DESCRIPTION_MAX} characters.")


def _locked_balance(*, user_id: str, livemode: bool) -> Balance:
    """The account's balance row, locked for this transaction; made (at 0) on the first append."""
    locked = Balance.objects.select_for_update()
    balance = locked.filter(user_id=user_id, livemode=livemode).first()
    if balance is None:
        # Two first appends may race: the loser's insert does nothing and it waits on the winner's lock.
        fresh = Balance(user_id=user_id, livemode=livemode, amount=0, currency=settings.SERVICE_CURRENCY)
        Balance.objects.bulk_create([fresh], ignore_conflicts=True)
        balance = locked.get(user_id=user_id, livemode=livemode)
    return balance
