"""The billing routes, asked by the tests that walk every /v1 route (tests/support/routes.py)."""

from tests.billing.factories import ledger

MAX_STATEMENTS = 2


def examples(user) -> list[str]:
    txn = ledger(user, ["top_up", "call", "refund", "call", "adjustment"])[2].id
    return [
        "/v1/balance",
        "/v1/balance_transactions",
        "/v1/balance_transactions?limit=2",
        "/v1/balance_transactions?type=call",
        "/v1/balance_transactions?type=nope",
        "/v1/balance_transactions?limit=0",
        f"/v1/balance_transactions?starting_after={txn}",
        f"/v1/balance_transactions?ending_before={txn}&type=call",
        "/v1/balance_transactions?starting_after=txn_nope",
        f"/v1/balance_transactions?starting_after={txn}&ending_before={txn}",
        f"/v1/balance_transactions/{txn}",
        "/v1/balance_transactions/txn_nope",
    ]
