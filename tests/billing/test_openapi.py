"""The OpenAPI document describes every billing operation, parameter, object and error, with its scope."""

import pytest

from apps.billing.models import TransactionType
from tests.billing.factories import append
from tests.billing.shapes import BALANCE_FIELDS, BALANCE_TRANSACTION_FIELDS
from tests.support import resources

pytestmark = pytest.mark.django_db

BALANCE = "/v1/balance"
LIST = "/v1/balance_transactions"
DETAIL = "/v1/balance_transactions/{balance_transaction_id}"


@pytest.mark.parametrize(
    ("path", "operation_id"),
    [(BALANCE, "retrieve_balance"), (LIST, "list_balance_transactions"), (DETAIL, "retrieve_balance_transaction")],
)
def test_each_operation(document, path, operation_id):
    resources.get_operation(document, path, operation_id)


def test_the_balance_object(document):
    schema = document["components"]["schemas"]["Balance"]
    assert set(schema["properties"]) == set(schema["required"]) == BALANCE_FIELDS
    assert schema["properties"]["object"]["enum"] == ["balance"]
    assert schema["properties"]["amount"]["type"] == "integer"
    assert schema["properties"]["low_balance"]["type"] == "boolean"
    assert resources.response_schema(document["paths"][BALANCE]["get"]) == {"$ref": "#/components/schemas/Balance"}


def test_the_balance_transaction_object(document):
    schema = document["components"]["schemas"]["BalanceTransaction"]
    assert set(schema["properties"]) == set(schema["required"]) == BALANCE_TRANSACTION_FIELDS
    assert schema["properties"]["object"]["enum"] == ["balance_transaction"]
    assert schema["properties"]["type"]["enum"] == TransactionType.values
    assert schema["properties"]["source"]["type"] == ["string", "null"]
    for name in ("amount", "ending_balance", "created"):
        assert schema["properties"][name]["type"] == "integer"
    assert "negative" in schema["properties"]["amount"]["description"]
    assert resources.response_schema(document["paths"][DETAIL]["get"]) == {
        "$ref": "#/components/schemas/BalanceTransaction"
    }


def test_the_list_and_its_parameters(document):
    operation = document["paths"][LIST]["get"]
    resources.assert_page_of(document, "PaginatedBalanceTransactionList", "BalanceTransaction")
    p = resources.paged_list_parameters(
        operation, cursor_format="balance-transaction-id", id_prefix="txn_", filters=["type"]
    )
    assert sorted(p["type"]["schema"]["enum"]) == sorted(TransactionType.values)
    assert "invalid_request (param type)" in operation["responses"]["400"]["description"]


def test_the_path_id(document, user, client):
    resources.assert_path_id(document, DETAIL, "balance_transaction_id", append(user).id)
