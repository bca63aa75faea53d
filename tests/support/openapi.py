"""The OpenAPI document as a test module reads it: fetched once per module, no credential."""

from django.test import Client


def openapi_document(django_db_blocker) -> dict:
    """GET /v1/openapi.json (for a module-scoped fixture: ``django_db_blocker`` lets it reach the database)."""
    with django_db_blocker.unblock():
        response = Client().get("/v1/openapi.json")
    assert response.status_code == 200
    return response.json()
