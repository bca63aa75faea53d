"""A database outage answers 503 with Retry-After, never a 500 page, and service resumes."""

import pytest
from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.utils import OperationalError

from tests.api_v1.helpers import assert_error


@pytest.fixture
def outage(monkeypatch):
    """Every use of a connection fails as if the server were unreachable."""

    def refuse(self):
        raise OperationalError("connection refused")

    def start():
        monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", refuse)

    def end():
        monkeypatch.undo()

    return start, end


@pytest.mark.django_db(transaction=True)
def test_v1_answers_503_then_recovers(api, bearer, outage):
    start, end = outage
    assert api.get("/v1/me", **bearer).status_code == 200
    start()
    response = api.get("/v1/me", **bearer)
    error = assert_error(response, 503, "service_unavailable", type_="api_error")
    assert response["Retry-After"] == "5"
    assert "connection refused" not in error["message"]
    end()
    assert api.get("/v1/me", **bearer).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_real_postgresql_unreachable(api, bearer):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: points the live connection at a closed port")
    assert api.get("/v1/me", **bearer).status_code == 200
    original = connection.settings_dict["PORT"]
    connection.close()
    connection.settings_dict["PORT"] = "1"  # nothing listens there
    try:
        response = api.get("/v1/me", **bearer)
        assert_error(response, 503, "service_unavailable")
        assert response["Retry-After"] == "5"
    finally:
        connection.close()
        connection.settings_dict["PORT"] = original
    assert api.get("/v1/me", **bearer).status_code == 200
