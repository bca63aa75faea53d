"""Credit for the test balance: the billing page's top-up in test mode.

Test mode places simulated calls against a balance of its own; a user trying their tools
needs credit there without any money moving. Only the test balance is ever credited, by
a bounded amount, through the ledger's one writer (``ledger.py``) like every other movement of a balance.
"""

import re
from decimal import Decimal

from django.conf import settings
from django.db import transaction

from apps.core.money import display, to_minor

from .ledger import balance_lock, entry_check, ledger_entry, ledger_send
from .models import BalanceTransaction, TransactionType

# What one top-up may add and the most a test balance may hold, in major units of the currency.
TOP_UP_CHOICES = (Decimal(5), Decimal(20), Decimal(100))
TEST_BALANCE_MAX = Decimal(1000)
# The form's own id: a double submit of one form sends it twice and credits once.
_REQUEST_ID = re.compile(r"[A-Za-z0-9_-]{16,48}")
SOURCE_PREFIX = "testtopup_"
DESCRIPTION = "Test-mode top-up from the billing page"


class TopUpRefused(ValueError):
    """A top-up the test balance does not take; its message is for the user, nothing is written."""


def top_up_choices() -> list[int]:
    """The amounts one top-up may add, in minor units of the service's currency."""
    return [int(to_minor(choice, settings.SERVICE_CURRENCY)) for choice in TOP_UP_CHOICES]


def top_up_test_balance(*, user, amount: int, request_id: str) -> tuple[BalanceTransaction, bool]:
    """Credit the account's *test* balance by ``amount`` (one of ``top_up_choices``) as a
    ``top_up`` row; returns the row and whether this call wrote it.

    ``request_id`` names the form that asked: the same id again answers with the row it
    already wrote. The live balance is never read or written here.
    """
    if amount not in top_up_choices():
        raise TopUpRefused("Choose one of the amounts offered.")
    if not isinstance(request_id, str) or not _REQUEST_ID.fullmatch(request_id):
        raise TopUpRefused("This form has expired: reload the page and try again.")
    source = SOURCE_PREFIX + request_id
    cap = int(to_minor(TEST_BALANCE_MAX, settings.SERVICE_CURRENCY))
    with transaction.atomic():
        # The test balance's row lock: a second submit of the same form waits here, then finds the first's row.
        balance = balance_lock(user_id=user.pk, livemode=False, create=True)
        done = BalanceTransaction.objects.filter(user_id=user.pk, livemode=False, source=source).first()
        if done is not None:
            return done, False
        if balance.amount + amount > cap:
            raise TopUpRefused(f"A test balance holds at most {display(cap, balance.currency)}.")
        entry = dict(amount=amount, type=TransactionType.TOP_UP, source=source, description=DESCRIPTION)
        entry_check(**entry)
        writes = ledger_entry(balance=balance, **entry)
        ledger_send(writes)
    return writes.row, True
