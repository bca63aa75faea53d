"""GET /readyz and GET /livez (config/health.py, docs/operations.md): ready only when PostgreSQL
and the budgets' Redis both answer, never a word of which failed, outside every budget."""

import pytest
from django.db import OperationalError
from django.db.backends.base.base import BaseDatabaseWrapper

from apps.ratelimit import conf

pytestmark = pytest.mark.django_db


def assert_no_data(response, status: str):
    assert response.json() == {"status": status}  # nothing but ready or not
    assert "no-cache" in response["Cache-Control"]
    assert response["Request-Id"].startswith("req_")


def test_ready_when_the_database_and_redis_answer(client, on_redis):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert_no_data(response, "ready")
    assert client.head("/readyz").status_code == 200


def test_not_ready_when_redis_is_gone_and_ready_again_when_it_is_back(client, on_redis):
    on_redis.stop()
    response = client.get("/readyz")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert_no_data(response, "unavailable")
    on_redis.start()
    assert client.get("/readyz").status_code == 200


def test_not_ready_when_the_database_is_gone_but_still_live(client, monkeypatch):
    def refuse(self):
        raise OperationalError("connection refused")

    monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", refuse)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert_no_data(response, "unavailable")
    live = client.get("/livez")
    assert live.status_code == 200
    assert_no_data(live, "live")


def test_outside_every_budget(client, settings, monkeypatch):
    """A load balancer polling every node every second never spends or meets a budget."""
    store = conf.get_store()

    def no_budget(*args, **kwargs):
        raise AssertionError("a health check evaluated a budget")

    monkeypatch.setattr(store, "evaluate", no_budget)
    for _ in range(50):
        assert client.get("/readyz").status_code == 200
        assert client.get("/livez").status_code == 200


def test_reads_only(client):
    assert client.post("/readyz").status_code == 405
    assert client.post("/livez").status_code == 405
