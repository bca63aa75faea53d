"""The reference's examples of the balance endpoints (apps/api_v1/examples.py)."""

from datetime import timedelta

from apps.api_v1.public import EXAMPLE_TIME, list_example, response_example

from .models import Balance, BalanceTransaction
from .serializers import BalanceSerializer, BalanceTransactionSerializer


def _transaction() -> BalanceTransaction:
    return BalanceTransaction(
        id="txn_3Rk8PzW2cQ6yLm0VbN5tHs9D",
        livemode=True,
        created=EXAMPLE_TIME - timedelta(hours=1),
        amount=-54,
        currency="usd",
        type="call",
        source="call_9Lq4Tz7WbK2mRx8NcV1pYs3E",
        description="Call to +49 151 12345678, 6 min",
        ending_balance=1846,
    )


@response_example("retrieve_balance")
def balance() -> dict:
    return BalanceSerializer(Balance(livemode=True, amount=1846, currency="usd")).data


@response_example("list_balance_transactions", query={"limit": 3, "type": "call"})
def transactions() -> dict:
    return list_example("/v1/balance_transactions", BalanceTransactionSerializer(_transaction()).data)


@response_example("retrieve_balance_transaction")
def transaction() -> dict:
    return BalanceTransactionSerializer(_transaction()).data
