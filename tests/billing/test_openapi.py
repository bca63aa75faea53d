"""The OpenAPI document describes every billing operation, parameter, object and error, with its scope."""

import re

import pytest

from apps.billing.models import TransactionType
from tests.billing.factories import append
from tests.support.openapi import openapi_document

pytestmark = pytest.mark.django_db

BALANCE = "/v1/balance"
LIST = "/v1/balance_transactions"
DETAIL = "/v1/balance_transactions/{balance_transaction_id}"


@pytest.fixture(scope="module")
def document(django_db_blocker):
    return openapi_document(django_db_blocker)


def params(operation) -> dict:
    return {p["name"]: p for p in operation["parameters"]}


@pytest.mark.parametrize(
    ("path", "operation_id"),
    [(BALANCE, "retrieve_balance"), (LIST, "list_balance_transactions"), (DETAIL, "retrieve_balance_transaction")],
)
def test_each_operation(document, path, operation_id):
    assert set(document["paths"][path]) == {"get"}
    operation = document["paths"][path]["get"]
    assert operation["operationId"] == operation_id
    assert operation["summary"]


def test_the_balance_object(document):
    schema = document["components"]["schemas"]["Balance"]
    fields = {
        "object",
        "amount",
        "currency",
        "held_amount",
        "available_amount",
        "low_balance",
        "billing_url",
        "livemode",
    }
    assert set(schema["properties"]) == set(schema["required"]) == fields
    assert schema["properties"]["object"]["enum"] == ["balance"]
    assert schema["properties"]["amount"]["type"] == "integer"
    assert schema["properties"]["low_balance"]["type"] == "boolean"
    ref = document["paths"][BALANCE]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ref == "#/components/schemas/Balance"


def test_the_balance_transaction_object(document):
    schema = document["components"]["schemas"]["BalanceTransaction"]
    fields = {
        "id",
        "object",
        "amount",
        "currency",
        "type",
        "source",
        "description",
        "ending_balance",
        "created",
        "livemode",
    }
    assert set(schema["properties"]) == set(schema["required"]) == fields
    assert schema["properties"]["object"]["enum"] == ["balance_transaction"]
    assert schema["properties"]["type"]["enum"] == TransactionType.values
    assert schema["properties"]["source"]["type"] == ["string", "null"]
    for name in ("amount", "ending_balance", "created"):
        assert schema["properties"][name]["type"] == "integer"
    assert "negative" in schema["properties"]["amount"]["description"]
    detail = document["paths"][DETAIL]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert detail == {"$ref": "#/components/schemas/BalanceTransaction"}


def test_the_list_and_its_parameters(document):
    operation = document["paths"][LIST]["get"]
    listed = document["components"]["schemas"]["PaginatedBalanceTransactionList"]
    assert set(listed["required"]) == {"object", "data", "has_more", "url"}
    assert listed["properties"]["data"]["items"] == {"$ref": "#/components/schemas/BalanceTransaction"}
    p = params(operation)
    assert set(p) == {"limit", "starting_after", "ending_before", "type", "Service-Version"}
    assert sorted(p["type"]["schema"]["enum"]) == sorted(TransactionType.values)
    assert p["limit"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}
    for cursor in ("starting_after", "ending_before"):
        assert p[cursor]["schema"] == {"type": "string", "format": "balance-transaction-id"}
        assert "txn_" in p[cursor]["description"]
    assert "invalid_request (param type)" in operation["responses"]["400"]["description"]


def test_the_path_id(document, user, client):
    operation = document["paths"][DETAIL]["get"]
    path_id = params(operation)["balance_transaction_id"]
    assert path_id["in"] == "path" and path_id["required"] is True
    pattern = path_id["schema"]["pattern"]
    assert re.fullmatch(pattern, append(user).id)
