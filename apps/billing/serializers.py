"""The ``balance`` and ``balance_transaction`` objects (docs/design.md, Phase 2), for REST and MCP alike.

``to_representation`` builds each object directly (no field machinery per
row); the declared fields document it in the OpenAPI document.
"""

from django.conf import settings
from rest_framework import serializers

from apps.core.timefmt import unix_seconds

from .models import Balance, BalanceTransaction, TransactionType


def billing_url() -> str:
    """Where the account adds credit; the same address the insufficient_credits error names."""
    return f"{settings.APP_URL}/billing"


def is_low(amount: int) -> bool:
    """Below ``LOW_BALANCE_THRESHOLD`` (minor units); exactly at it is not low."""
    return amount < settings.LOW_BALANCE_THRESHOLD


class BalanceSerializer(serializers.Serializer):
    object = serializers.ChoiceField(choices=["balance"])
    amount = serializers.IntegerField(help_text="Minor units of the currency (cents for usd); negative when owed.")
    currency = serializers.CharField(help_text="Lowercase ISO 4217 code, e.g. usd.")
    held_amount = serializers.IntegerField(
        help_text="Minor units set aside for live calls (each holds what it may cost at most until it ends)."
    )
    available_amount = serializers.IntegerField(
        help_text="amount less held_amount: what a new call may spend. Quotes and placements check this."
    )
    low_balance = serializers.BooleanField(
        help_text="true when the amount is below the service's low-balance threshold: time to add credit."
    )
    billing_url = serializers.URLField(help_text="The page where the account holder adds credit.")
    livemode = serializers.BooleanField(help_text="false for the test-mode balance (sk_test_ keys).")

    def to_representation(self, balance: Balance) -> dict:
        held = getattr(balance, "held_amount", 0) or 0
        return {
            "object": "balance",
            "amount": balance.amount,
            "currency": balance.currency,
            "held_amount": held,
            "available_amount": balance.amount - held,
            "low_balance": is_low(balance.amount),
            "billing_url": billing_url(),
            "livemode": balance.livemode,
        }


class BalanceTransactionSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="Transaction id, prefix txn_.")
    object = serializers.ChoiceField(choices=["balance_transaction"])
    amount = serializers.IntegerField(help_text="Minor units of the currency; negative spends, positive credits.")
    currency = serializers.CharField(help_text="Lowercase ISO 4217 code, e.g. usd.")
    type = serializers.ChoiceField(
        choices=TransactionType.values,
        help_text=(
            "top_up and refund are positive; call, number_rental and transcript are negative; "
            "adjustment (a correction) is either."
        ),
    )
    source = serializers.CharField(
        allow_null=True,
        help_text=(
            "The id of what caused it: call_... for call and transcript charges, num_... for number rentals, "
            "the refunded txn_... for a refund; null for top-ups and adjustments."
        ),
    )
    description = serializers.CharField(help_text="What it was, in words.")
    ending_balance = serializers.IntegerField(
        help_text="The balance just after this transaction, minor units: the previous one's plus this amount."
    )
    created = serializers.IntegerField(help_text="Unix seconds.")
    livemode = serializers.BooleanField(help_text="false for test-mode transactions.")

    def to_representation(self, row: BalanceTransaction) -> dict:
        return {
            "id": row.id,
            "object": "balance_transaction",
            "amount": row.amount,
            "currency": row.currency,
            "type": row.type,
            "source": row.source or None,
            "description": row.description,
            "ending_balance": row.ending_balance,
            "created": unix_seconds(row.created),
            "livemode": row.livemode,
        }
