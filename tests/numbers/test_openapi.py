"""The OpenAPI document describes every numbers operation, parameter, object and error, with its scope."""

import pytest

from tests.support import resources

from .factories import make_number
from .shapes import CALLER_ID_FIELDS, NUMBER_FIELDS

pytestmark = pytest.mark.django_db

NUMBERS = "/v1/numbers"
NUMBER = "/v1/numbers/{number_id}"
CALLER_IDS = "/v1/caller_ids"


@pytest.mark.parametrize(
    ("path", "operation_id"),
    [(NUMBERS, "list_numbers"), (NUMBER, "retrieve_number"), (CALLER_IDS, "list_caller_ids")],
)
def test_each_operation(document, path, operation_id):
    assert resources.get_operation(document, path, operation_id)["tags"] == ["Numbers"]


def test_the_number_object(document):
    schema = document["components"]["schemas"]["Number"]
    assert set(schema["properties"]) == set(schema["required"]) == NUMBER_FIELDS
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
    assert resources.response_schema(document["paths"][NUMBER]["get"]) == {"$ref": "#/components/schemas/Number"}


def test_the_caller_id_object(document):
    schema = document["components"]["schemas"]["CallerId"]
    assert set(schema["properties"]) == set(schema["required"]) == CALLER_ID_FIELDS
    assert schema["properties"]["object"]["enum"] == ["caller_id"]
    assert schema["properties"]["default"]["type"] == "boolean"
    listed = document["components"]["schemas"]["PaginatedCallerIdList"]
    assert listed["properties"]["data"]["items"] == {"$ref": "#/components/schemas/CallerId"}


@pytest.mark.parametrize(
    ("path", "format", "prefix"), [(NUMBERS, "number-id", "num_"), (CALLER_IDS, "caller-id-id", "cid_")]
)
def test_the_lists_and_their_parameters(document, path, format, prefix):
    resources.paged_list_parameters(document["paths"][path]["get"], cursor_format=format, id_prefix=prefix)


def test_the_path_id(document, user):
    resources.assert_path_id(document, NUMBER, "number_id", make_number(user).id)
