"""The account's credit: a balance per (account, mode) and the append-only ledger that moves it.

Amounts are signed integers in minor units of the account currency, with the
currency's own digits (apps/core/money.py): negative amounts spend, positive
ones credit. Every ledger row carries the balance after it (``ending_balance``),
so the rows of one account and mode, oldest first, form a chain:
``ending_balance = previous ending_balance + amount``. These rows and the balances are
written only by apps/billing/ledger.py, which keeps that chain and the balance in step;
nothing updates or deletes a row (a correction is a new ``adjustment``).
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.core.ids import id_default

TXN_PREFIX = "txn_"
new_txn_id = id_default(TXN_PREFIX, "new_txn_id")


class TransactionType(models.TextChoices):
    TOP_UP = "top_up", "Top-up"
    CALL = "call", "Call"
    NUMBER_RENTAL = "number_rental", "Number rental"
    TRANSCRIPT = "transcript", "Transcript"
    REFUND = "refund", "Refund"
    ADJUSTMENT = "adjustment", "Adjustment"


# The sign rules: money in (positive), money spent (negative), corrections either way (never 0).
CREDIT_TYPES = frozenset({TransactionType.TOP_UP, TransactionType.REFUND})
DEBIT_TYPES = frozenset({TransactionType.CALL, TransactionType.NUMBER_RENTAL, TransactionType.TRANSCRIPT})

SIGN_RULE = (
    Q(type__in=sorted(CREDIT_TYPES), amount__gt=0)
    | Q(type__in=sorted(DEBIT_TYPES), amount__lt=0)
    | (Q(type=TransactionType.ADJUSTMENT) & ~Q(amount=0))
)


class Balance(models.Model):
    """The running balance of one account in one mode: the last ledger row's ``ending_balance``.

    Created by the first ledger row; an account without one has a balance of 0.
    Its row is also the lock that serialises appends to the account's ledger.
    """

    # The unique constraint's index (user, livemode) serves every lookup, cascades included.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    livemode = models.BooleanField()
    amount = models.BigIntegerField(default=0, help_text="Minor units of the currency.")
    currency = models.CharField(max_length=3)
    # The ``created`` of the newest ledger row: the next row must be later, so that the list
    # order (newest first by created, id) is always the chain's order.
    updated = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "livemode"], name="billing_balance_account")]

    def __str__(self):
        mode = "live" if self.livemode else "test"
        return f"{self.amount} {self.currency} ({mode})"


class BalanceTransaction(models.Model):
    """One movement of the balance (docs/design.md: ``balance_transaction``). Append-only."""

    id = models.CharField(primary_key=True, max_length=32, default=new_txn_id, editable=False)
    # Leads both indexes below, so it needs none of its own. PROTECT: the ledger is the
    # account's financial history; deleting the account does not erase it silently.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="balance_transactions", db_index=False
    )
    livemode = models.BooleanField()
    created = models.DateTimeField()
    amount = models.BigIntegerField(help_text="Minor units; negative spends.")
    currency = models.CharField(max_length=3)
    type = models.CharField(max_length=16, choices=TransactionType.choices)
    # "" when nothing caused it (top-ups, adjustments): the API shows null.
    source = models.CharField(max_length=64, blank=True, default="", help_text="The id of what caused it.")
    description = models.CharField(max_length=255, blank=True)
    ending_balance = models.BigIntegerField(help_text="The balance after this row, minor units.")

    class Meta:
        indexes = [
            # A ledger page, newest first: one range scan of the account's rows in this mode.
            models.Index(fields=["user", "livemode", "-created", "-id"], name="billing_txn_account"),
            # The same with the type filter.
            models.Index(fields=["user", "livemode", "type", "-created", "-id"], name="billing_txn_account_type"),
        ]
        constraints = [models.CheckConstraint(condition=SIGN_RULE, name="billing_txn_amount_sign")]
        ordering = ["-created", "-id"]

    def __str__(self):
        return f"{self.id} {self.type} {self.amount} {self.currency}"


HOLD_PREFIX = "hold_"
new_hold_id = id_default(HOLD_PREFIX, "new_hold_id")


class Hold(models.Model):
    """Credit set aside for a live call (docs/design.md, Phase 3): counted against the available balance
    until it is released, when the call ends and its answered time is charged.

    A hold never moves the balance itself; the ledger row of the charge does. Written and
    released by ``apps.billing.holds`` while the account's balance row is locked (the ledger's lock).
    """

    id = models.CharField(primary_key=True, max_length=32, default=new_hold_id, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    livemode = models.BooleanField()
    created = models.DateTimeField()
    amount = models.BigIntegerField(help_text="Minor units held.")
    currency = models.CharField(max_length=3)
    source = models.CharField(max_length=64, help_text="The id of what holds it (call_...).")
    released_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            # The held amount of an account: its unreleased holds only.
            models.Index(
                fields=["user", "livemode"], condition=Q(released_at__isnull=True), name="billing_hold_active_idx"
            ),
        ]
        constraints = [models.CheckConstraint(condition=Q(amount__gte=0), name="billing_hold_amount_positive")]

    def __str__(self):
        return f"{self.id} {self.amount} {self.currency}"
