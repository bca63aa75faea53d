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
