import pytest
from rest_framework.test import APIClient


@pytest.fixture
def dashboard(user):
    """A browser signed in to the dashboard (session cookie, CSRF not enforced)."""
    client = APIClient()
    client.force_login(user)
    return client


@pytest.fixture
def create(dashboard):
    """POST /v1/api-keys as the signed-in user; returns the response."""

    def _create(**body):
        body.setdefault("name", "Build server")
        body.setdefault("scopes", ["rates:read"])
        return dashboard.post("/v1/api-keys", body, format="json")

    return _create


def assert_error(response, code, status, param=None):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    error = response.json()["error"]
    assert error["code"] == code
    assert error["param"] == param
    assert error["request_id"] == response["Request-Id"]
    assert error["doc_url"] == f"https://docs.example.test/errors#{code}"
    return error
