"""The edge of /carrier/...: unauthenticated posts are bounded per address (600 a minute, the
budgets table), and every answer is JSON, unknown paths included (names with dots, deeper paths,
other methods): never Django's HTML page."""

import pytest
from django.test import Client

from apps.ratelimit import budgets, conf
from apps.ratelimit.stores.memory import MemoryStore
from tests.support.envelope import assert_error

pytestmark = pytest.mark.django_db


def test_the_carrier_budget_is_in_the_budgets_table():
    assert budgets.path_class("/carrier/twilio/status") == "carrier"
    assert budgets.CLASSES["carrier"] == (budgets.CARRIER_IP,)
    assert (budgets.CARRIER_IP.burst, budgets.CARRIER_IP.rate, budgets.CARRIER_IP.period) == (600, 600, 60)
    assert budgets.CARRIER_IP.key == budgets.IP


@pytest.fixture
def stopped_clock(monkeypatch):
    """The limiter's store on a clock that does not move while the posts are made."""
    memory = MemoryStore(key_prefix="carrier-test", clock=lambda: 1_800_000_000.0)
    monkeypatch.setattr(conf, "get_store", lambda: memory)


def test_one_address_gets_600_posts_a_minute_then_429_and_another_address_is_unaffected(stopped_clock):
    client = Client(REMOTE_ADDR="198.51.100.7")
    answers = [client.post("/carrier/simulated/status", "{}", content_type="application/json") for _ in range(600)]
    assert {a.status_code for a in answers} == {403}
    assert answers[-1]["RateLimit-Policy"] == "600;w=60"
    denied = client.post("/carrier/simulated/status", "{}", content_type="application/json")
    assert_error(denied, 429, "rate_limited")
    assert denied["Retry-After"]
    # Unknown paths spend it too: a flood of 404s is no way round it.
    assert_error(client.post("/carrier/a.b/c"), 429, "rate_limited")
    other = Client(REMOTE_ADDR="198.51.100.8")
    assert other.post("/carrier/simulated/status", "{}", content_type="application/json").status_code == 403


@pytest.mark.parametrize(
    "path",
    [
        "/carrier/",
        "/carrier/twilio.com/status",
        "/carrier/simulated/status.json",
        "/carrier/../etc/passwd",
        "/carrier/simulated/status/extra",
        "/carrier/%E2%80%AE/status",
        "/carrier/nowhere/status",
    ],
)
def test_unknown_carrier_paths_are_json_404s(path):
    assert_error(Client().post(path), 404, "not_found")
    assert_error(Client().get(path), 404, "not_found")


def test_a_get_is_a_json_405_and_a_refused_signature_a_json_403():
    got = Client().get("/carrier/simulated/status")
    assert_error(got, 405, "method_not_allowed")
    assert got["Allow"] == "POST"
    assert_error(Client().post("/carrier/simulated/status"), 403, "forbidden")
