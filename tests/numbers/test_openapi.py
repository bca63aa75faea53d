"""The OpenAPI document describes every numbers operation, parameter, object and error, with its scope."""

import re

import pytest

from tests.support.openapi import openapi_document

from .factories import make_number

pytestmark = pytest.mark.django_db

NUMBERS = "/v1/numbers"
NUMBER = "/v1/numbers/{number_id}"
CALLER_IDS = "/v1/caller_ids"


@pytest.fixture(scope="module")
def document(django_db_blocker):
    return openapi_document(django_db_blocker)


def params(operation) -> dict:
    return {p["name"]: p for p in operation["parameters"]}


@pytest.mark.parametrize(
    ("path", "operation_id"),
    [(NUMBERS, "list_numbers"), (NUMBER, "retrieve_number"), (CALLER_IDS, "list_caller_ids")],
)
def test_each_operation(document, path, operation_id):
    assert set(document["paths"][path]) == {"get"}
    operation = document["paths"][path]["get"]
    assert operation["operationId"] == operation_id
    assert operation["summary"] and operation["tags"] == ["Numbers"]


def test_the_number_object(document):
    schema = document["components"]["schemas"]["Number"]
    fields = {
        "id",
        "object",
        "number",
        "country",
        "type",
        "capabilities",
        "messages_opt_in",
        "status",
        "label",
        "renews_at",
        "created",
        "livemode",
    }
    assert set(schema["properties"]) == set(schema["required"]) == fields
    properties = schema["properties"]
    assert properties["object"]["enum"] == ["number"]
    assert properties["type"]["enum"] == ["local", "mobile", "national", "toll_free"]
    assert properties["status"]["enum"] == ["active", "canceled"]
    assert (
        properties["messages_opt_in"]["type"] == "boolean" and "Sharing" in properties["messages_opt_in"]["description"]
    )
    assert properties["renews_at"]["type"] == ["integer", "null"]
    assert properties["label"]["type"] == ["string", "null"]
    capabilities = document["components"]["schemas"]["NumberCapabilities"]
    assert set(capabilities["properties"]) == set(capabilities["required"]) == {"voice", "sms"}
    detail = document["paths"][NUMBER]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert detail == {"$ref": "#/components/schemas/Number"}


def test_the_caller_id_object(document):
    schema = document["components"]["schemas"]["CallerId"]
    fields = {"id", "object", "number", "country", "verified_at", "default", "created", "livemode"}
    assert set(schema["properties"]) == set(schema["required"]) == fields
    assert schema["properties"]["object"]["enum"] == ["caller_id"]
    assert schema["properties"]["default"]["type"] == "boolean"
    listed = document["components"]["schemas"]["PaginatedCallerIdList"]
    assert listed["properties"]["data"]["items"] == {"$ref": "#/components/schemas/CallerId"}


@pytest.mark.parametrize(
    ("path", "format", "prefix"), [(NUMBERS, "number-id", "num_"), (CALLER_IDS, "caller-id-id", "cid_")]
)
def test_the_lists_and_their_parameters(document, path, format, prefix):
    operation = document["paths"][path]["get"]
    p = params(operation)
    assert set(p) == {"limit", "starting_after", "ending_before", "Service-Version"}
    assert p["limit"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}
    for cursor in ("starting_after", "ending_before"):
        assert p[cursor]["schema"] == {"type": "string", "format": format}
        assert prefix in p[cursor]["description"]


def test_the_path_id(document, user):
    operation = document["paths"][NUMBER]["get"]
    path_id = params(operation)["number_id"]
    assert path_id["in"] == "path" and path_id["required"] is True
    assert re.fullmatch(path_id["schema"]["pattern"], make_number(user).id)
