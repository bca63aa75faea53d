"""GET /metrics (config/metrics.py, docs/operations.md "Metrics"): off without METRICS_TOKEN, refused
without the token, and after a day's mix of requests every family of the catalogue is there, read
back with prometheus_client's own text parser."""

import pytest
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from apps.jobs.public import enqueue
from apps.ratelimit.testing import frozen_clock
from config import metrics as metrics_view
from tests.support.factories import make_api_key
from tests.support.jobs import handlers
from tests.support.metrics import FAMILIES

pytestmark = pytest.mark.django_db

TOKEN = "metrics-token-for-tests-0123456789"


@pytest.fixture
def metrics_on(settings):
    settings.METRICS_TOKEN = TOKEN
    metrics_view.reset_cache()
    yield
    metrics_view.reset_cache()


def scrape(client=None) -> dict:
    response = (client or Client()).get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return {family.name: family for family in text_string_to_metric_families(response.content.decode())}


def samples(family, **labels) -> list:
    return [s for s in family.samples if all(s.labels.get(k) == v for k, v in labels.items())]


def test_off_without_a_token_it_is_an_unknown_route(settings):
    settings.METRICS_TOKEN = ""
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "route_not_found"
    assert response["Request-Id"].startswith("req_")


@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer ", "Bearer wrong", f"Basic {TOKEN}", f"Bearer {TOKEN}x", f"bearer {TOKEN[:-1]}"],
)
def test_refused_without_the_token(metrics_on, authorization):
    headers = {} if authorization is None else {"HTTP_AUTHORIZATION": authorization}
    response = Client().get("/metrics", **headers)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_token"
    assert "Bearer" in response["WWW-Authenticate"]
    assert b"service_" not in response.content


def test_the_scraper_spends_no_budget(metrics_on):
    client = Client()
    with frozen_clock():
        for _ in range(400):  # more than any per-address budget (metadata's 300 a minute)
            assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 200


def test_every_family_is_there_after_a_mix_of_requests(metrics_on, user, store):
    _key, secret = make_api_key(user, scopes=["calls:read"])
    api = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")
    with frozen_clock():
        for _ in range(61):  # the 61st read of a minute is refused by reads.principal
            api.get("/v1/me")
    assert api.get("/v1/calls/call_doesnotexist").status_code in (404, 429)
    Client().get("/v1/nothing/here")
    Client().post("/carrier/simulated/status", {})  # the simulator sends no callbacks: refused
    with handlers(tests__due=lambda payload: None):
        enqueue("tests.due", {}, run_at=timezone.now() - timezone.timedelta(minutes=3))
    families = scrape()
    assert set(families) >= FAMILIES

    requests = families["service_http_requests"]
    assert sum(s.value for s in samples(requests, route="v1/me", method="GET", status="200")) >= 60
    assert sum(s.value for s in samples(requests, route="v1/me", status="429")) >= 1
    assert samples(requests, route="(unmatched)") or samples(requests, status="404")
    latency = families["service_http_request_duration_seconds"]
    assert any(s.name.endswith("_bucket") and s.labels["route"] == "v1/me" for s in latency.samples)
    assert samples(families["service_ratelimit_refusals"], budget="reads.principal")[0].value >= 1
    cache = families["service_credential_cache_lookups"]
    assert samples(cache, result="miss")[0].value >= 1 and samples(cache, result="hit")[0].value >= 1
    assert samples(families["service_carrier_refusals"], carrier="simulated", stage="callback")[0].value >= 1
    # A kind that names no lane runs in housekeeping.
    (due,) = samples(families["service_jobs_due"], lane="housekeeping")
    assert due.value == 1
    (age,) = samples(
        families["service_jobs_oldest_due_age_seconds"], lane="housekeeping"
    )  # a kind that names no lane runs in housekeeping
    assert age.value >= 180


def test_labels_carry_no_user_data(metrics_on, user, store):
    key, secret = make_api_key(user, scopes=["calls:read"])
    api = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")
    api.get("/v1/calls/call_secretlookingid123")
    api.get("/v1/me?email=ada@example.com")
    text = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode()
    for private in ("call_secretlookingid123", "ada@example.com", secret, key.id, str(user.pk) + '"'):
        assert private not in text


def test_a_placement_any_carrier_refuses_is_counted(metrics_on):
    from apps.telephony.carriers.base import CarrierRefused
    from apps.telephony.carriers.simulated import SimulatedCarrier

    class Refusing(SimulatedCarrier):
        name = "refusing-test"

        def place_callback(self, request):
            raise CarrierRefused("down")

    def placements() -> float:
        family = scrape()["service_carrier_refusals"]
        return sum(s.value for s in samples(family, carrier="refusing-test", stage="placement"))

    before = placements()
    with pytest.raises(CarrierRefused):
        Refusing().place_callback(None)
    metrics_view.reset_cache()
    assert placements() == before + 1
