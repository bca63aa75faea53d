"""The OpenAPI document describes GET /v1/rates: its operation and scope, its parameter, the rate object
and its errors."""

import pytest

from tests.rates.shapes import RATE_FIELDS
from tests.support import resources

pytestmark = pytest.mark.django_db

PATH = "/v1/rates"
NULLABLE = {"to", "label", "prefix", "per_minute_amount_decimal", "next_step"}


@pytest.fixture
def operation(document):
    return resources.get_operation(document, PATH, "retrieve_rate")


def resolve(document, schema):
    ref = schema.get("$ref")
    return document["components"]["schemas"][ref.rsplit("/", 1)[1]] if ref else schema


def test_the_operation(operation):
    assert operation["operationId"] == "retrieve_rate"
    assert operation["summary"]
    assert "import_rates" in operation["description"]


def test_the_to_parameter(operation):
    (to,) = [p for p in operation["parameters"] if p["name"] == "to"]
    assert to["in"] == "query"
    assert to["required"] is True
    assert to["schema"] == {"type": "string", "minLength": 1, "maxLength": 100, "format": "rate-destination"}
    for example in ("E.164", "+4915112345678", "alpha-2", "Allemagne"):
        assert example in to["description"]


def test_the_errors(operation):
    assert "invalid_request, param to" in operation["responses"]["400"]["description"]
    assert "several countries" in operation["responses"]["400"]["description"]
    assert "not_found, param to" in operation["responses"]["404"]["description"]
    for status in ("400", "404"):
        assert resources.response_schema(operation, status) == {"$ref": "#/components/schemas/Error"}


def test_the_rate_object(document, operation):
    schema = resolve(document, resources.response_schema(operation))
    assert set(schema["properties"]) == set(schema["required"]) == RATE_FIELDS
    properties = schema["properties"]
    assert properties["object"]["enum"] == ["rate"]
    assert properties["estimate"]["type"] == "boolean"
    assert properties["livemode"]["type"] == "boolean"
    for name in NULLABLE:
        assert "null" in properties[name]["type"], name
    for name in RATE_FIELDS - NULLABLE - {"billing_increment", "object", "estimate", "livemode"}:
        assert properties[name]["type"] == "string", name
    increment = properties["billing_increment"]
    assert increment.get("type") == ["object", "null"] or any(
        option.get("type") == "null" for option in increment.get("oneOf", increment.get("anyOf", []))
    )
    assert "minor units" in properties["per_minute_amount_decimal"]["description"]
