"""The calls operations in /v1/openapi.json: operations, parameters, the objects, the errors."""

import jsonschema
import pytest

from tests.calls.factories import CallFactory, TranscriptFactory, live_call, make_contact, unanswered_call
from tests.calls.shapes import CALL_FIELDS

pytestmark = pytest.mark.django_db

STATUSES = {"queued", "ringing_you", "ringing", "in_progress", "completed", "busy", "no_answer", "failed", "canceled"}


@pytest.fixture
def document(api):
    response = api.get("/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def parameters(operation) -> dict:
    return {p["name"]: p for p in operation["parameters"]}


def test_both_operations_are_documented_with_the_expansions_refusals(document):
    # Scope, security and the framework's errors are tests/api_v1/test_resource_routes.py's and
    # test_openapi_errors.py's; the expansions' own refusals are this app's.
    listing = document["paths"]["/v1/calls"]["get"]
    detail = document["paths"]["/v1/calls/{call_id}"]["get"]
    assert listing["operationId"] == "list_calls"
    assert detail["operationId"] == "retrieve_call"
    for operation in (listing, detail):
        assert "transcripts:read, contacts:read; param expand" in operation["responses"]["403"]["description"]
        assert "forbidden: expand[]=transcript" in operation["responses"]["403"]["description"]


def test_list_parameters(document):
    params = parameters(document["paths"]["/v1/calls"]["get"])
    assert {"limit", "starting_after", "ending_before", "direction", "status", "expand[]"} <= set(params)
    assert params["direction"]["schema"]["enum"] == ["inbound", "outbound"]
    assert set(params["status"]["schema"]["enum"]) == STATUSES
    assert params["expand[]"]["schema"] == {
        "type": "array",
        "items": {"type": "string", "enum": ["contact", "transcript"]},
    }
    assert params["expand[]"]["style"] == "form" and params["expand[]"]["explode"] is True
    for cursor in ("starting_after", "ending_before"):
        assert params[cursor]["schema"] == {"type": "string", "format": "call-id"}


def test_detail_parameters(document):
    params = parameters(document["paths"]["/v1/calls/{call_id}"]["get"])
    assert params["call_id"]["in"] == "path"
    assert params["call_id"]["schema"]["pattern"] == "^call_[0-9A-Za-z]{1,64}$"
    assert params["expand[]"]["schema"]["items"]["enum"] == ["contact", "transcript"]


def test_the_call_object(document):
    call = document["components"]["schemas"]["Call"]
    assert set(call["properties"]) == CALL_FIELDS
    assert set(call["required"]) == CALL_FIELDS
    assert set(call["properties"]["status"]["enum"]) == STATUSES
    assert call["properties"]["amount"]["type"] == ["integer", "null"]
    transcript = [s for s in call["properties"]["transcript"]["anyOf"] if s.get("type") == "object"]
    assert transcript[0]["properties"]["object"]["enum"] == ["transcript"]


def schema_for(document, name):
    return {"$ref": f"#/components/schemas/{name}", "components": document["components"]}


def test_real_answers_match_the_document(document, caller, owner, summaries_on):
    contact = make_contact(owner)
    ended = CallFactory(user=owner, contact_id=contact.id)
    TranscriptFactory(call=ended)
    live_call(user=owner)
    unanswered_call("busy", user=owner)
    CallFactory(user=owner, contact_id="ct_gone", to_country="")
    for expand in ([], ["transcript"], ["contact"], ["transcript", "contact"]):
        page = caller.get("/v1/calls", {"expand[]": expand}).json()
        jsonschema.validate(page, schema_for(document, "PaginatedCallList"))
        one = caller.get(f"/v1/calls/{ended.id}", {"expand[]": expand}).json()
        jsonschema.validate(one, schema_for(document, "Call"))
