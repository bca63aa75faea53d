"""Client metadata documents cannot take the server down (docs/spec.md 5.3, 7.3 invalid_client).

A fetch of a client-chosen URL holds a sync worker for up to its deadline. The
cost is bounded: two fetches in flight server-wide (in the limiter's store),
30 fetches a minute per host, a failing URL is not fetched again for a minute,
and the DNS lookup is inside the fetch's deadline. Whatever is refused gets
the ``invalid_client`` page at once. The same bounds against a live gunicorn
with sync workers: tests/oauth/test_live_workers.py.
"""

import threading

import pytest
from django.db import connection
from django.test import Client

from apps.oauth.client_metadata import client_get_by_metadata_url
from apps.oauth.models import Application
from apps.ratelimit import budgets, conf
from apps.ratelimit.stores.base import StoreUnavailable
from tests.oauth.cimd_support import PATH, Route, document, serve_document
from tests.support.oauth import authorize_params, pkce

pytestmark = pytest.mark.django_db

CAP = budgets.CIMD_FETCHES_IN_FLIGHT
REDIRECT = "https://assistant.example/callback"


def authorize(url):
    _verifier, challenge = pkce()
    params = authorize_params(Application(client_id=url), challenge, redirect_uri=REDIRECT)
    return Client().get("/oauth/authorize", params)


def assert_invalid_client_page(response):
    assert response.status_code == 400
    assert "Location" not in response
    assert "invalid_client" in response.content.decode()


def hold_every_slot(store=None) -> list[str]:
    store = store or conf.get_store()
    tokens = [store.slot_acquire(CAP.key, limit=CAP.limit, ttl_ms=60_000) for _ in range(CAP.limit)]
    assert all(tokens)
    return tokens


# --- the server-wide cap on fetches in flight ---------------------------------------------------


def test_the_cap_is_two_fetches_in_flight_server_wide():
    assert CAP.limit == 2


def test_with_every_slot_held_a_new_document_is_not_fetched(cimd):
    url = serve_document(cimd)
    tokens = hold_every_slot()
    assert client_get_by_metadata_url(url, None) is None
    assert cimd.hits == []
    # A slot given back is taken by the next fetch.
    conf.get_store().slot_release(CAP.key, tokens[0])
    assert client_get_by_metadata_url(url, None) is not None
    assert cimd.hits_on(PATH) == 1


def test_over_the_cap_authorize_answers_the_invalid_client_page_at_once(cimd):
    url = serve_document(cimd)
    hold_every_slot()
    assert_invalid_client_page(authorize(url))
    assert cimd.hits == []


def test_refused_for_the_cap_is_not_a_failed_fetch(cimd):
    url = serve_document(cimd)
    tokens = hold_every_slot()
    assert client_get_by_metadata_url(url, None) is None
    for token in tokens:
        conf.get_store().slot_release(CAP.key, token)
    assert client_get_by_metadata_url(url, None) is not None  # no minute of back-off for a busy server


def test_a_cached_document_needs_no_slot(cimd):
    url = serve_document(cimd, headers={"Cache-Control": "max-age=600"})
    assert client_get_by_metadata_url(url, None) is not None
    hold_every_slot()
    assert client_get_by_metadata_url(url, None) is not None
    assert cimd.hits_on(PATH) == 1


def test_a_slot_whose_holder_died_frees_itself(cimd, limiter):
    url = serve_document(cimd)
    # Held as a fetch holds them: its deadline (3 s) plus a grace of 5 s.
    for _ in range(CAP.limit):
        assert limiter.slot_acquire(CAP.key, limit=CAP.limit, ttl_ms=8_000)
    assert client_get_by_metadata_url(url, None) is None
    limiter.clock.advance(8)
    assert client_get_by_metadata_url(url, None) is not None


@pytest.mark.django_db(transaction=True)
def test_two_slow_fetches_in_flight_refuse_a_third_until_one_ends(cimd, slow_host, settings):
    """Real concurrency in one process: two fetches held by a host that never answers."""
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "CIMD_FETCH_TIMEOUT_SECONDS": 30}
    results = {}

    def fetch(n):
        try:
            results[n] = client_get_by_metadata_url(slow_host.url(f"/slow/{n}.json"), None)
        finally:
            connection.close()

    threads = [threading.Thread(target=fetch, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    try:
        assert slow_host.wait(lambda host: host.accepted == 2)
        url = serve_document(cimd)
        assert client_get_by_metadata_url(url, None) is None  # refused at once: both slots are busy
        assert cimd.hits == []
        assert slow_host.open == 2  # the two slow fetches were still in flight meanwhile
    finally:
        slow_host.release()
        for thread in threads:
            thread.join(30)
    assert results == {0: None, 1: None}
    assert client_get_by_metadata_url(url, None) is not None
    assert slow_host.accepted == 2


# --- the per-host budget -------------------------------------------------------------------------


def test_thirty_fetches_a_minute_per_host(cimd, limiter):
    urls = [serve_document(cimd, path=f"/clients/{n}.json") for n in range(31)]
    for url in urls[:30]:
        assert client_get_by_metadata_url(url, None) is not None
    assert client_get_by_metadata_url(urls[30], None) is None
    assert cimd.hits_on("/clients/30.json") == 0
    # Another host has its own budget; this one refills at one fetch every two seconds.
    other = cimd.url("/other.json", host="rebind.example.test")
    cimd.serve("/other.json", Route(200, document(other)))
    assert client_get_by_metadata_url(other, None) is not None
    limiter.clock.advance(2)
    assert client_get_by_metadata_url(urls[30], None) is not None


def test_the_host_budget_counts_host_names_case_blind(cimd, limiter, dns):
    dns.answers["CLIENT.example.test"] = ["127.0.0.1"]
    for n in range(30):
        assert client_get_by_metadata_url(serve_document(cimd, path=f"/c/{n}.json"), None) is not None
    shouted = cimd.url("/c/x.json", host="CLIENT.example.test")
    cimd.serve("/c/x.json", Route(200, document(shouted)))
    assert client_get_by_metadata_url(shouted, None) is None
    assert cimd.hits_on("/c/x.json") == 0


# --- the negative cache of failed fetches --------------------------------------------------------


def test_a_failing_url_is_not_fetched_again_for_a_minute(cimd, limiter):
    url = cimd.url()
    cimd.serve(PATH, Route(503, b"down"))
    for _ in range(5):
        assert client_get_by_metadata_url(url, None) is None
    assert cimd.hits_on(PATH) == 1
    assert_invalid_client_page(authorize(url))
    assert cimd.hits_on(PATH) == 1
    limiter.clock.advance(60)
    assert client_get_by_metadata_url(url, None) is None
    assert cimd.hits_on(PATH) == 2


def test_a_failing_url_does_not_hold_back_another_url_of_its_host(cimd, limiter):
    cimd.serve(PATH, Route(503, b"down"))
    assert client_get_by_metadata_url(cimd.url(), None) is None
    assert client_get_by_metadata_url(serve_document(cimd, path="/fine.json"), None) is not None


def test_a_host_that_never_answers_is_not_fetched_again_for_a_minute(cimd, slow_host, settings, limiter):
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "CIMD_FETCH_TIMEOUT_SECONDS": 0.2}
    url = slow_host.url("/slow.json")
    assert client_get_by_metadata_url(url, None) is None  # the deadline passed
    assert client_get_by_metadata_url(url, None) is None
    assert slow_host.accepted == 1


# --- the DNS lookup inside the deadline ----------------------------------------------------------


def test_a_lookup_that_never_answers_is_given_up_at_the_deadline(cimd, dns, settings):
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "CIMD_FETCH_TIMEOUT_SECONDS": 0.2}
    let_go, answered = threading.Event(), threading.Event()

    def hanging_resolver():
        let_go.wait(10)  # a resolver that does not answer within any reasonable deadline
        answered.set()
        return ["127.0.0.1"]

    dns.answers["hang.example.test"] = hanging_resolver
    try:
        assert client_get_by_metadata_url(f"https://hang.example.test:{cimd.port}{PATH}", None) is None
        # The fetch gave up while the lookup was still unanswered: it did not wait for the resolver.
        assert not answered.is_set()
        assert dns.lookups == ["hang.example.test"]
    finally:
        let_go.set()


# --- the limiter's store is down -----------------------------------------------------------------


def test_limiter_down_at_the_fetch_gates_is_503_and_fetches_nothing(cimd, limiter, monkeypatch):
    url = serve_document(cimd)
    real = limiter.evaluate

    def fetch_budgets_down(checks, **kwargs):
        if any(c.budget in budgets.CLASSES["cimd_fetch"] for c in checks):
            raise StoreUnavailable("connection refused")
        return real(checks, **kwargs)

    monkeypatch.setattr(limiter, "evaluate", fetch_budgets_down)
    response = authorize(url)
    assert response.status_code == 503
    assert response.json()["error"] == "temporarily_unavailable"
    assert response["Retry-After"] == "5"
    assert cimd.hits == []
