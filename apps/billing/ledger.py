"""The one writer of the ledger: every ledger row and every balance row is written here.

One lock rule: a movement of an account's credit first locks that account's ``Balance`` row
(``SELECT ... FOR UPDATE`` on that one row, nothing else), so the appends, holds and
charges of one account and mode queue up behind one another; ``balance_lock`` is the only
place that takes it. One chain rule (``ledger_entry``): a row's ``ending_balance`` is the
balance before it plus its ``amount``, its ``created`` is later than the newest row's (a
time that is not is moved just past it, unless it was given explicitly, when it is
refused), and the balance row takes the new amount and time. Nothing is published from
here: the ``balance.low`` event a change causes comes back as data (``LedgerWrites.events``)
for the caller to publish once its writes are sent, in the same transaction, as
apps/calls/states.py does with a call's events. tests/billing/test_one_writer.py keeps
every other module from writing these rows.
"""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connections, router, transaction
from django.utils import timezone

from apps.core.sql import Statement, insert_statement, inserted, update_row_statement, write_together
from apps.webhooks.public import publish

from .models import CREDIT_TYPES, DEBIT_TYPES, Balance, BalanceTransaction, TransactionType

DESCRIPTION_MAX = BalanceTransaction._meta.get_field("description").max_length
SOURCE_MAX = BalanceTransaction._meta.get_field("source").max_length
# Two rows of one account never share a ``created``: the list's order is the chain's order.
TICK = timedelta(microseconds=1)
# What the lock reads of the balance row: all the chain rule needs.
BALANCE_FIELDS = ("id", "user_id", "livemode", "amount", "currency", "updated")


class LedgerError(ValueError):
    """A row the ledger refuses (wrong sign, unknown type, out of order); nothing is written."""


@dataclass(frozen=True)
class LedgerEvent:
    """A webhook event a ledger change causes, to be published with the change."""

    user_id: str
    livemode: bool
    type: str
    data: dict

    def publish(self) -> None:
        publish(self.user_id, self.type, self.data, livemode=self.livemode)


@dataclass
class LedgerWrites:
    """One ledger row as data: the row, its writes (the row's INSERT, the balance's UPDATE) and
    the events it causes. ``ledger_send`` sends them, or a caller sends the statements with its own."""

    row: BalanceTransaction
    statements: list[Statement]
    events: list[LedgerEvent] = field(default_factory=list)

    def sent(self, connection) -> None:
        """What follows the statements once they ran: the row's ``post_save``, then the events."""
        inserted(self.row, connection)
        for event in self.events:
            event.publish()


def balance_lock(*, user_id: str, livemode: bool, create: bool = False) -> Balance | None:
    """The account's balance row, locked until the end of the transaction (the one lock rule).

    None when the account has never had a ledger row (a balance of 0), unless ``create``: then
    the row is made at 0 and locked.
    """
    locked = Balance.objects.select_for_update().filter(user_id=user_id, livemode=livemode).only(*BALANCE_FIELDS)
    balance = locked.first()
    if balance is None and create:
        # Two first appends may race: the loser's insert does nothing and it waits on the winner's lock.
        fresh = Balance(user_id=user_id, livemode=livemode, amount=0, currency=settings.SERVICE_CURRENCY)
        Balance.objects.bulk_create([fresh], ignore_conflicts=True)
        balance = locked.get()
    return balance


def ledger_entry(
    *,
    balance: Balance,
    amount: int,
    type: str,
    source: str | None,
    description: str,
    at: datetime | None = None,
    created: datetime | None = None,
) -> LedgerWrites:
    """The next row of the ledger that the locked ``balance`` ends (the one chain rule), as data.

    ``at`` (default now) is moved just past the newest row if it is not later; a ``created``
    given explicitly (seed data, imports) must be later than the newest row. ``balance`` is
    left holding the new amount and time, so a second entry on it chains on the first.
    """
    entry_check(amount=amount, type=type, source=source, description=description)
    newest = balance.updated
    if created is not None:
        if newest is not None and created <= newest:
            raise LedgerError(f"created must be later than the newest row ({newest.isoformat()}).")
    else:
        at = at or timezone.now()
        created = at if newest is None or at > newest else newest + TICK
    row = BalanceTransaction(
        user_id=balance.user_id,
        livemode=balance.livemode,
        created=created,
        amount=amount,
        currency=balance.currency,
        type=type,
        source=source or "",
        description=description,
        ending_balance=balance.amount + amount,
    )
    connection = _connection()
    statements = [
        insert_statement(row, connection),
        update_row_statement(Balance, balance.pk, connection, amount=row.ending_balance, updated=created),
    ]
    events = _low_events(balance, before=balance.amount, after=row.ending_balance)
    balance.amount, balance.updated = row.ending_balance, created
    return LedgerWrites(row=row, statements=statements, events=events)


def ledger_send(writes: LedgerWrites) -> None:
    """Send ``writes`` in the caller's transaction, then publish its events in it."""
    connection = _connection()
    write_together(writes.statements, using=connection.alias)
    writes.sent(connection)


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
    """Append one row to the account's ledger in ``livemode`` and move its balance, atomically:
    the lock, the chain rule, the writes and the events, in one transaction.

    ``user`` may be a partial User: only its primary key is read.
    """
    entry_check(amount=amount, type=type, source=source, description=description)
    with transaction.atomic():
        balance = balance_lock(user_id=user.pk, livemode=livemode, create=True)
        writes = ledger_entry(
            balance=balance, amount=amount, type=type, source=source, description=description, created=created
        )
        ledger_send(writes)
    return writes.row


def ledger_clear_for_demo(*, user_id: str, livemode: bool) -> None:
    """Remove the account's ledger and balance in ``livemode``, for the demo's seeding to write them
    again: the one place ledger rows are ever deleted (a real account's rows are never)."""
    BalanceTransaction.objects.filter(user_id=user_id, livemode=livemode).delete()
    Balance.objects.filter(user_id=user_id, livemode=livemode).delete()


def _low_events(balance: Balance, *, before: int, after: int) -> list[LedgerEvent]:
    """``balance.low`` when a change takes the balance from at or above the low mark to below it
    (one event a crossing, none while it stays low)."""
    from .serializers import is_low

    if not (is_low(after) and not is_low(before)):
        return []
    data = {"object": "balance", "amount": after, "currency": balance.currency}
    return [LedgerEvent(user_id=balance.user_id, livemode=balance.livemode, type="balance.low", data=data)]


def entry_check(*, amount, type, source, description) -> None:
    """The rules of one row, before anything is locked or written."""
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


def _connection():
    return connections[router.db_for_write(BalanceTransaction)]
