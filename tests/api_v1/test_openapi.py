"""GET /v1/openapi.json: an OpenAPI 3.1 document for what exists (docs/spec.md 4.1)."""

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation import OpenAPIV31SpecValidator

pytestmark = pytest.mark.django_db


@pytest.fixture
def document(api):
    response = api.get("/v1/openapi.json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    return response.json()


def test_document_is_valid_openapi_3_1(document):
    assert document["openapi"].startswith("3.1")
    validate(document, cls=OpenAPIV31SpecValidator)


def test_document_needs_no_credential(api, document):
    assert api.get("/v1/openapi.json", HTTP_AUTHORIZATION="Bearer junk").status_code == 200


def test_document_describes_me_with_bearer_security(document):
    me = document["paths"]["/v1/me"]["get"]
    assert me["security"] == [{"bearer": []}, {"oauth2": []}]  # any scope; an API key or an OAuth token
    schemes = document["components"]["securitySchemes"]
    assert schemes["bearer"]["type"] == "http" and schemes["bearer"]["scheme"] == "bearer"
    user = document["components"]["schemas"]["User"]
    assert set(user["properties"]) == {"object", "id", "email", "display_name", "country_code", "time_zone", "livemode"}


def test_document_describes_the_error_envelope(document):
    error = document["components"]["schemas"]["Error"]["properties"]["error"]
    assert set(error["required"]) == {"type", "code", "message", "param", "doc_url", "request_id"}
    me = document["paths"]["/v1/me"]["get"]["responses"]
    for status in ["401", "403", "404", "406", "429"]:
        assert me[status]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}


def test_only_existing_paths_are_documented(document):
    assert not any(path.startswith("/v1/_") for path in document["paths"])
    assert "/v1/me" in document["paths"]


def _framework_docstrings() -> set[str]:
    import inspect

    from apps.api_v1 import bases, idempotency

    return {
        inspect.cleandoc(value.__doc__)
        for module in (bases, idempotency)
        for value in vars(module).values()
        if isinstance(value, type) and value.__module__ == module.__name__ and value.__doc__
    }


def test_every_operation_says_what_it_does_to_the_api_user_never_what_a_framework_base_says(document):
    framework = _framework_docstrings()
    assert framework
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            description = operation.get("description", "").strip()
            assert description, f"{method.upper()} {path} has no description"
            assert not any(description.startswith(text[:60]) for text in framework), (
                f"{method.upper()} {path} shows a framework docstring: {description[:80]!r}"
            )
