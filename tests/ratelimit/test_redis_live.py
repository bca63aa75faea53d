"""Against a real Redis: one round trip per request, fail closed on an outage, recover by itself.

A private redis-server on a free port (never the shared one on 6379): these
tests stop it and count its commands.
"""

import signal
import subprocess
import threading
import time

import pytest
from django.test import Client

from apps.ratelimit import conf
from apps.ratelimit.stores.redis import RedisStore
from tests.support.factories import UserFactory, make_api_key
from tests.support.oauth import FORM, exchange, get_code, make_client, pkce, refresh, signed_in, tokens_for

from .redis_server import sent_commands

pytestmark = pytest.mark.django_db


def monitor(server):
    """Start MONITOR on the private server; returns a function stopping it and giving client-issued commands."""
    process = subprocess.Popen(["redis-cli", "-p", str(server.port), "monitor"], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "OK"

    def stop() -> list[str]:
        time.sleep(0.2)
        process.terminate()
        out, _ = process.communicate(timeout=5)
        # Lines look like: 1700000000.123 [0 127.0.0.1:5678] "evalsha" ... ; script calls say [0 lua].
        return [
            line.split("] ", 1)[1].split(" ")[0].strip('"').lower()
            for line in out.splitlines()
            if "[0 lua]" not in line
        ]

    return stop


def test_an_allowed_request_costs_one_redis_round_trip(api, bearer, on_redis, monkeypatch):
    for _ in range(2):  # connects, loads the scripts and caches the key
        assert api.get("/v1/me", **bearer).status_code == 200
    stop = monitor(on_redis)
    sent = sent_commands(monkeypatch)
    response = api.get("/v1/me", **bearer)
    assert response.status_code == 200
    assert response["RateLimit-Policy"] == "60;w=60"
    assert response["X-RateLimit-Remaining"] in {"57", "58"}  # 58 if a second passed since the first
    assert len(sent) == 1
    assert stop() == ["evalsha"]


def test_a_failed_bearer_check_costs_one_round_trip_too(api, on_redis, monkeypatch):
    api.get("/v1/me", HTTP_AUTHORIZATION="Bearer sk_live_nope")
    sent = sent_commands(monkeypatch)
    assert api.get("/v1/me", HTTP_AUTHORIZATION="Bearer sk_live_nope").status_code == 401
    assert len(sent) == 1


def test_a_refresh_costs_two_round_trips(on_redis, monkeypatch):
    # Flood guard with the back-off peek (before the view), then, once every check has
    # passed, the grant family's budget and the client's alert-only success ceiling in one
    # call: two moments, so two calls; neither may grow.
    app = make_client()
    tokens = tokens_for(UserFactory(), app)  # connects and loads the script
    stop = monitor(on_redis)
    sent = sent_commands(monkeypatch)
    response = refresh(Client(), app, tokens["refresh_token"])
    assert response.status_code == 200
    assert response["RateLimit-Policy"] == "600;w=60"
    assert len(sent) == 2
    assert stop() == ["evalsha"] * 2
    assert b"grant_family" in sent[1][0] and b"exchange_successes.client" in sent[1][0]


def test_a_code_exchange_costs_two_round_trips(on_redis, monkeypatch):
    # Flood guard before the view; the client's alert-only success ceiling after the exchange.
    app = make_client()
    user = UserFactory()
    tokens_for(UserFactory(), app)  # connects and loads the script
    verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge)
    stop = monitor(on_redis)
    sent = sent_commands(monkeypatch)
    response = exchange(Client(), app, code, verifier)
    assert response.status_code == 200
    assert len(sent) == 2
    assert stop() == ["evalsha"] * 2


def test_reads_deny_after_the_burst_on_redis(api, bearer, on_redis):
    started = time.monotonic()
    statuses = []
    while 429 not in statuses and len(statuses) < 500:
        statuses.append(api.get("/v1/me", **bearer).status_code)
    elapsed = time.monotonic() - started
    assert statuses[:60] == [200] * 60
    # Real time passes while the test runs: the burst plus one refill a second.
    assert statuses[-1] == 429
    assert len(statuses) - 1 <= 60 + int(elapsed) + 1
    denied = api.get("/v1/me", **bearer)
    if denied.status_code == 429:
        assert denied["X-RateLimit-Remaining"] == "0"
        assert int(denied["Retry-After"]) >= 1


def test_redis_stopped_mid_test_fails_closed_then_recovers_in_the_same_process(api, bearer, client, on_redis):
    assert api.get("/v1/me", **bearer).status_code == 200
    store = conf.get_store()
    assert isinstance(store, RedisStore)

    on_redis.stop()
    for response in (
        api.get("/v1/me", **bearer),
        api.get("/.well-known/oauth-protected-resource/v1"),
        api.get("/v1/me", HTTP_AUTHORIZATION="Bearer sk_live_nope"),
        api.post("/mcp", {}, format="json", HTTP_AUTHORIZATION="Bearer sat_nope"),
    ):
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "rate_limiter_unavailable"
        assert response["Retry-After"] == "5"
    oauth = client.post("/oauth/token", "grant_type=refresh_token", content_type=FORM)
    assert oauth.status_code == 503
    assert oauth.json()["error"] == "temporarily_unavailable"
    assert oauth["Retry-After"] == "5"

    on_redis.start()  # same port, empty: no restart of this process, no new store
    response = api.get("/v1/me", **bearer)
    assert response.status_code == 200
    assert response["RateLimit"] == "limit=60, remaining=59, reset=0"
    assert conf.get_store() is store


def test_a_restarted_redis_costs_no_failed_request(api, bearer, on_redis):
    # The held connection's socket was closed by the old server; it is replaced before sending,
    # and the new server's empty script cache is filled, all within the next request.
    assert api.get("/v1/me", **bearer).status_code == 200
    on_redis.stop()
    on_redis.start()
    response = api.get("/v1/me", **bearer)
    assert response.status_code == 200
    assert response["RateLimit"] == "limit=60, remaining=59, reset=0"


def test_a_flushed_script_cache_is_refilled_on_the_next_request(api, bearer, on_redis):
    assert api.get("/v1/me", **bearer).status_code == 200
    on_redis.client().script_flush()
    assert api.get("/v1/me", **bearer).status_code == 200


def test_a_forked_worker_opens_its_own_connection(on_redis, monkeypatch):
    # gunicorn forks after the app is loaded: a socket made in the parent must never be shared.
    store = conf.get_store()
    store.evaluate([])
    parent = store._connection()
    assert store._connection() is parent
    monkeypatch.setattr("apps.ratelimit.stores.redis.os.getpid", lambda: -1)
    child = store._connection()
    assert child is not parent
    store.evaluate([])
    assert child._sock is not None
    assert parent._sock is not None  # left to the parent, not closed under it


def test_each_thread_has_its_own_connection(on_redis):
    store = conf.get_store()
    seen = []
    thread = threading.Thread(target=lambda: seen.append(store._connection()))
    thread.start()
    thread.join()
    assert seen[0] is not store._connection()


def test_a_hung_redis_fails_closed_and_its_late_reply_never_answers_another_request(api, bearer, on_redis):
    # docs/spec.md 8: an unreachable store is a 503 with Retry-After: 5. The held connection must not
    # keep a reply that arrives after the timeout: it answered another credential.
    other = UserFactory(email="grace@example.com")
    other_bearer = {"HTTP_AUTHORIZATION": f"Bearer {make_api_key(other)[1]}"}
    for _ in range(2):  # the first lookup creates each user's epoch, the second caches the key
        assert api.get("/v1/me", **bearer).status_code == 200
        assert api.get("/v1/me", **other_bearer).status_code == 200

    on_redis.process.send_signal(signal.SIGSTOP)
    try:
        started = time.monotonic()
        hung = api.get("/v1/me", **other_bearer)
        assert hung.status_code == 503
        assert hung.json()["error"]["code"] == "rate_limiter_unavailable"
        assert hung["Retry-After"] == "5"
        assert time.monotonic() - started < 3
    finally:
        on_redis.process.send_signal(signal.SIGCONT)

    time.sleep(0.2)  # Redis runs the lookup it had been sent and replies to a closed socket
    response = api.get("/v1/me", **bearer)
    assert response.status_code == 200
    assert response.json()["email"] == "ada@example.com"
