"""svc_get_balance (docs/design.md, Phase 2): the credit balance, as the REST view computes it."""

from apps.core.money import display, spoken
from apps.mcp_bridge.public import ToolSpec, register

from . import selectors
from .serializers import BalanceSerializer


def spoken_balance(*, amount: int, currency: str, low: bool, url: str) -> str:
    if amount < 0:
        line = f"Your balance is {spoken(-amount, currency)} below zero."
    else:
        line = f"Your balance is {spoken(amount, currency)}."
    if low:
        line += f" That is low: add credit at {url}."
    return line


def get_balance(*, principal, arguments) -> dict:
    balance = BalanceSerializer(selectors.balance_get(principal=principal)).data
    amount, currency = balance["amount"], balance["currency"]
    return {
        "amount": amount,
        "currency": currency,
        "amount_display": display(amount, currency),
        "low_balance": balance["low_balance"],
        "billing_url": balance["billing_url"],
        "spoken": spoken_balance(
            amount=amount, currency=currency, low=balance["low_balance"], url=balance["billing_url"]
        ),
    }


svc_get_balance = register(
    ToolSpec(
        name="svc_get_balance",
        title="Get credit balance",
        description=(
            "Shows the account's prepaid credit balance (what calls, numbers and transcripts are paid from), "
            "and whether it is low. When it is low, offer the billing page link so the user can add credit."
        ),
        scope="credits:read",
        handler=get_balance,
        output_schema={
            "type": "object",
            "properties": {
                "amount": {
                    "type": "integer",
                    "description": "The balance in minor units of the currency (cents for usd); negative when owed.",
                },
                "currency": {"type": "string", "description": "Lowercase ISO 4217 code, e.g. usd."},
                "amount_display": {"type": "string", "description": "The balance for display, e.g. $12.34."},
                "low_balance": {"type": "boolean", "description": "true when the balance is low: time to add credit."},
                "billing_url": {"type": "string", "description": "The page where the user adds credit."},
                "spoken": {"type": "string", "description": "One or two sentences to read the balance aloud."},
            },
            "required": ["amount", "currency", "amount_display", "low_balance", "billing_url", "spoken"],
            "additionalProperties": False,
        },
    )
)
