"""The ledger's indexes (PostgreSQL): a page is one range scan of (user, livemode, created DESC, id DESC), the type
filter has its own, and ids keep no LIKE index (docs/decisions/billing.md has the plans on 1,000,000 rows)."""

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def definitions(table) -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s", [table])
        return dict(cursor.fetchall())


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("index definitions are read from PostgreSQL's catalog")


def test_the_ledger_indexes():
    found = definitions("billing_balancetransaction")
    assert found["billing_txn_account"].endswith("(user_id, livemode, created DESC, id DESC)")
    assert found["billing_txn_account_type"].endswith("(user_id, livemode, type, created DESC, id DESC)")
    assert set(found) == {"billing_balancetransaction_pkey", "billing_txn_account", "billing_txn_account_type"}


def test_the_balance_has_one_row_per_account_and_mode():
    found = definitions("billing_balance")
    assert found["billing_balance_account"].startswith("CREATE UNIQUE INDEX")
    assert found["billing_balance_account"].endswith("(user_id, livemode)")
    assert set(found) == {"billing_balance_pkey", "billing_balance_account"}
