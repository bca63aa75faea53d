"""The OpenAPI document declares the OAuth flow beside bearer credentials, with each operation's scope."""

import pytest

from apps.api_v1.openapi import add_oauth2_scheme
from apps.credentials.scopes import SCOPES

pytestmark = pytest.mark.django_db


@pytest.fixture
def document(client, docs_here):
    response = client.get("/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def test_the_oauth2_scheme_is_the_authorization_code_flow_with_the_scope_sentences(document):
    scheme = document["components"]["securitySchemes"]["oauth2"]
    assert scheme["type"] == "oauth2"
    assert set(scheme["flows"]) == {"authorizationCode"}
    flow = scheme["flows"]["authorizationCode"]
    assert flow["authorizationUrl"] == "http://testserver/oauth/authorize"
    assert flow["tokenUrl"] == "http://testserver/oauth/token"
    assert flow["refreshUrl"] == "http://testserver/oauth/token"
    assert flow["scopes"] == {name: scope.sentence for name, scope in SCOPES.items()}
    assert "PKCE" in scheme["description"] and "S256" in scheme["description"]
    assert "resource=http://testserver/v1" in scheme["description"]
    # Beside the bearer scheme (API keys and tokens alike), not instead of it.
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"


def test_every_bearer_operation_also_takes_an_oauth_token_with_the_same_scopes(document):
    checked = 0
    for operations in document["paths"].values():
        for operation in operations.values():
            if not isinstance(operation, dict):
                continue
            security = operation.get("security", [])
            bearer = [req["bearer"] for req in security if "bearer" in req]
            oauth = [req["oauth2"] for req in security if "oauth2" in req]
            assert oauth == bearer
            checked += bool(bearer)
    assert checked  # /v1/me at least


def test_a_scoped_operation_gets_the_same_scope_under_oauth2(settings):
    settings.BASE_URL = "https://api.example.com"
    result = {
        "components": {"securitySchemes": {"bearer": {}}},
        "paths": {
            "/v1/rates": {"get": {"security": [{"bearer": ["rates:read"]}]}, "parameters": []},
            "/v1/api-keys": {"get": {"security": [{"dashboardSession": []}]}},
        },
    }
    add_oauth2_scheme(result)
    assert result["paths"]["/v1/rates"]["get"]["security"] == [{"bearer": ["rates:read"]}, {"oauth2": ["rates:read"]}]
    assert result["paths"]["/v1/api-keys"]["get"]["security"] == [{"dashboardSession": []}]
    assert result["components"]["securitySchemes"]["oauth2"]["flows"]["authorizationCode"]["authorizationUrl"] == (
        "https://api.example.com/oauth/authorize"
    )


def test_the_document_points_at_the_docs(document, docs_here):
    assert document["externalDocs"]["url"] == docs_here
    assert docs_here in document["info"]["description"]
