"""The OpenAPI document describes every contacts operation, parameter, object and error, with its scope."""

import re

import pytest

from tests.support.openapi import openapi_document

from .factories import make_contact

pytestmark = pytest.mark.django_db

LIST = "/v1/contacts"
DETAIL = "/v1/contacts/{contact_id}"


@pytest.fixture(scope="module")
def document(django_db_blocker):
    return openapi_document(django_db_blocker)


def params(operation) -> dict:
    return {p["name"]: p for p in operation["parameters"]}


@pytest.mark.parametrize(("path", "operation_id"), [(LIST, "list_contacts"), (DETAIL, "retrieve_contact")])
def test_each_operation(document, path, operation_id):
    assert set(document["paths"][path]) == {"get"}
    operation = document["paths"][path]["get"]
    assert operation["operationId"] == operation_id
    assert operation["summary"] and operation["tags"] == ["Contacts"]


def test_the_contact_object(document):
    schema = document["components"]["schemas"]["Contact"]
    fields = {"id", "object", "name", "phone_numbers", "created", "livemode"}
    assert set(schema["properties"]) == set(schema["required"]) == fields
    assert schema["properties"]["object"]["enum"] == ["contact"]
    assert schema["properties"]["created"]["type"] == "integer"
    phone = document["components"]["schemas"]["ContactPhoneNumber"]
    assert set(phone["properties"]) == set(phone["required"]) == {"number", "label", "country"}
    assert phone["properties"]["label"]["enum"] == ["mobile", "home", "work", "other"]
    assert phone["properties"]["country"]["type"] == ["string", "null"]
    assert schema["properties"]["phone_numbers"]["items"] == {"$ref": "#/components/schemas/ContactPhoneNumber"}
    detail = document["paths"][DETAIL]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert detail == {"$ref": "#/components/schemas/Contact"}


def test_the_list_and_its_parameters(document):
    operation = document["paths"][LIST]["get"]
    listed = document["components"]["schemas"]["PaginatedContactList"]
    assert set(listed["required"]) == {"object", "data", "has_more", "url"}
    assert listed["properties"]["data"]["items"] == {"$ref": "#/components/schemas/Contact"}
    p = params(operation)
    assert set(p) == {"limit", "starting_after", "ending_before", "query", "Service-Version"}
    assert p["query"]["schema"] == {
        "type": "string",
        "minLength": 1,
        "maxLength": 100,
        "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f]*$",
    }
    assert "start of a word" in p["query"]["description"] and "digits" in p["query"]["description"]
    assert p["limit"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}
    for cursor in ("starting_after", "ending_before"):
        assert p[cursor]["schema"] == {"type": "string", "format": "contact-id"}
        assert "ct_" in p[cursor]["description"] and "name order" in p[cursor]["description"]
    assert "ordered by name" in operation["description"]
    assert "invalid_request (param query)" in operation["responses"]["400"]["description"]


def test_the_path_id(document, user):
    operation = document["paths"][DETAIL]["get"]
    path_id = params(operation)["contact_id"]
    assert path_id["in"] == "path" and path_id["required"] is True
    assert re.fullmatch(path_id["schema"]["pattern"], make_contact(user).id)
