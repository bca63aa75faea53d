"""Regressions for what schemathesis (scripts/schemathesis_run.py) found on /v1/api-keys."""

import uuid

import pytest
from rest_framework.test import APIClient


@pytest.fixture
def dashboard(user):
    client = APIClient()
    client.force_login(user)
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["put", "patch"])
def test_an_unserved_method_is_405_even_with_a_used_idempotency_key(dashboard, method):
    key = str(uuid.uuid4())
    body = {"name": "k", "scopes": ["rates:read"]}
    assert dashboard.post("/v1/api-keys", body, format="json", HTTP_IDEMPOTENCY_KEY=key).status_code == 201
    response = getattr(dashboard, method)("/v1/api-keys", body, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert response.status_code == 405, response.content
    assert response.json()["error"]["code"] == "method_not_allowed"


@pytest.fixture
def document(api):
    return api.get("/v1/openapi.json").json()


def test_document_states_what_the_key_endpoints_enforce(document):
    paths = document["paths"]
    create = paths["/v1/api-keys"]["post"]
    links = create["responses"]["201"]["links"]
    assert {link["operationId"] for link in links.values()} == {"retrieve_api_key", "revoke_api_key", "rotate_api_key"}
    assert all(link["parameters"] == {"key_id": "$response.body#/id"} for link in links.values())
    for path, method in (("/v1/api-keys", "post"), ("/v1/api-keys/{key_id}", "delete")):
        operation = paths[path][method]
        assert "409" in operation["responses"]
        (idem,) = [p for p in operation["parameters"] if p["name"] == "Idempotency-Key"]
        assert idem["schema"]["maxLength"] == 255 and idem["schema"]["minLength"] == 1
    cursors = [
        p for p in paths["/v1/api-keys"]["get"]["parameters"] if p["name"] in ("starting_after", "ending_before")
    ]
    assert [c["schema"] for c in cursors] == [{"type": "string", "format": "api-key-id"}] * 2
    body = document["components"]["schemas"]["ApiKeyCreateRequest"]
    assert body["additionalProperties"] is False
    assert body["properties"]["scopes"]["minItems"] == 1
    assert body["properties"]["name"]["maxLength"] == 100
    assert body["properties"]["ip_allowlist"]["maxItems"] == 50


@pytest.mark.django_db
def test_unknown_body_fields_are_refused_as_the_document_says(dashboard):
    response = dashboard.post("/v1/api-keys", {"name": "k", "scopes": ["rates:read"], "x": 1}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_request"
    assert response.json()["error"]["param"] == "x"


@pytest.mark.django_db
def test_empty_cursor_is_invalid_cursor(dashboard):
    response = dashboard.get("/v1/api-keys", {"ending_before": ""})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_cursor"
