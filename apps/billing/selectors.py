"""Reads of the ledger: the one place that scopes them to the caller's account and mode.

``principal.user`` may be a partial User (a cached credential's): only its
primary key is read.
"""

from django.conf import settings
from django.db.models import QuerySet

from apps.api_v1.public import Listing
from apps.core.ids import is_id

from .holds import held_amount_expression
from .models import TXN_PREFIX, Balance, BalanceTransaction


def balance_get(*, principal) -> Balance:
    """The balance of the caller's account in the caller's mode, with ``held_amount`` (what live
    calls hold) read in the same statement; an unsaved 0 when it has no ledger yet."""
    user_id, livemode = principal.user.pk, principal.livemode
    held = held_amount_expression(user_id=user_id, livemode=livemode)
    found = Balance.objects.filter(user_id=user_id, livemode=livemode).annotate(held_amount=held).first()
    if found is None:
        found = Balance(user_id=user_id, livemode=livemode, amount=0, currency=settings.SERVICE_CURRENCY)
        found.held_amount = 0
    return found


def _ledger(livemode: bool, of_type: bool, *, user_id, type: str | None = None) -> QuerySet[BalanceTransaction]:
    # livemode is shape, not a value: Django writes "WHERE livemode" or "WHERE NOT livemode".
    rows = BalanceTransaction.objects.filter(user_id=user_id, livemode=livemode)
    return rows.filter(type=type) if of_type else rows


def balance_transaction_list(*, principal, type: str | None = None) -> Listing:
    """The caller's ledger rows in the caller's mode, optionally of one type; the list view pages them.

    Any of the caller's rows in this mode marks a position, also one the type filter leaves out.
    """
    mode, account = principal.livemode, {"user_id": principal.user.pk}
    every = Listing(_ledger, (mode, False), account)
    return every if type is None else Listing(_ledger, (mode, True), {**account, "type": type}, cursors=every)


def balance_transaction_get(*, principal, transaction_id: str) -> BalanceTransaction | None:
    """One of the caller's rows in the caller's mode; None for a malformed id, another account's or mode's."""
    # Checked before any query: a malformed id never reaches the database.
    if not is_id(transaction_id, TXN_PREFIX):
        return None
    return balance_transaction_list(principal=principal).queryset().filter(pk=transaction_id).first()
