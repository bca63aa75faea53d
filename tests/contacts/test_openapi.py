"""The OpenAPI document describes every contacts operation, parameter, object and error, with its scope."""

import pytest

from tests.support import resources

from .factories import make_contact
from .shapes import CONTACT_FIELDS

pytestmark = pytest.mark.django_db

LIST = "/v1/contacts"
DETAIL = "/v1/contacts/{contact_id}"


@pytest.mark.parametrize(("path", "operation_id"), [(LIST, "list_contacts"), (DETAIL, "retrieve_contact")])
def test_each_operation(document, path, operation_id):
    assert resources.get_operation(document, path, operation_id)["tags"] == ["Contacts"]


def test_the_contact_object(document):
    schema = document["components"]["schemas"]["Contact"]
    assert set(schema["properties"]) == set(schema["required"]) == CONTACT_FIELDS
    assert schema["properties"]["object"]["enum"] == ["contact"]
    assert schema["properties"]["created"]["type"] == "integer"
    phone = document["components"]["schemas"]["ContactPhoneNumber"]
    assert set(phone["properties"]) == set(phone["required"]) == {"number", "label", "country"}
    assert phone["properties"]["label"]["enum"] == ["mobile", "home", "work", "other"]
    assert phone["properties"]["country"]["type"] == ["string", "null"]
    assert schema["properties"]["phone_numbers"]["items"] == {"$ref": "#/components/schemas/ContactPhoneNumber"}
    assert resources.response_schema(document["paths"][DETAIL]["get"]) == {"$ref": "#/components/schemas/Contact"}


def test_the_list_and_its_parameters(document):
    operation = document["paths"][LIST]["get"]
    resources.assert_page_of(document, "PaginatedContactList", "Contact")
    p = resources.paged_list_parameters(operation, cursor_format="contact-id", id_prefix="ct_", filters=["query"])
    assert p["query"]["schema"] == {
        "type": "string",
        "minLength": 1,
        "maxLength": 100,
        "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f]*$",
    }
    assert "start of a word" in p["query"]["description"] and "digits" in p["query"]["description"]
    for cursor in resources.CURSORS:
        assert "name order" in p[cursor]["description"]
    assert "ordered by name" in operation["description"]
    assert "invalid_request (param query)" in operation["responses"]["400"]["description"]


def test_the_path_id(document, user):
    resources.assert_path_id(document, DETAIL, "contact_id", make_contact(user).id)
