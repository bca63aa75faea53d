"""/mcp and the limiter: every request spends the reads budget; failures answer with the envelope (docs/spec.md 8)."""

import pytest

from apps.ratelimit import conf
from apps.ratelimit.stores.base import StoreUnavailable
from apps.ratelimit.stores.memory import MemoryStore
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory, make_api_key
from tests.support.mcp import HANDSHAKE, McpClient

pytestmark = pytest.mark.django_db

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


@pytest.fixture(autouse=True)
def still_clock(monkeypatch):
    """A store whose clock stands still, so no budget refills while a test spends it."""
    store = MemoryStore(key_prefix="mcp-test", clock=lambda: 1_800_000_000.0)
    monkeypatch.setattr(conf, "get_store", lambda: store)
    return store


def test_success_carries_the_reads_budget_headers(mcp):
    response = mcp.post(PING)
    assert response.status_code == 200
    assert response["RateLimit"].startswith("limit=60, remaining=59, reset=")
    assert response["RateLimit-Policy"] == "60;w=60"
    assert response["X-RateLimit-Limit"] == "60"
    assert response["X-RateLimit-Remaining"] == "59"
    assert "Retry-After" not in response


def test_notifications_and_rpc_errors_count_too(mcp):
    mcp.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, version=HANDSHAKE)
    mcp.post(b"{")
    assert mcp.post(PING)["X-RateLimit-Remaining"] == "57"


def test_61st_request_in_a_minute_is_429_envelope(mcp):
    for _ in range(60):
        assert mcp.post(PING).status_code == 200
    response = mcp.post(PING)
    error = assert_error(response, 429, "rate_limited", type_="rate_limit_error")
    assert int(response["Retry-After"]) >= 1
    assert response["X-RateLimit-Remaining"] == "0"
    assert "seconds" in error["message"] or "second" in error["message"]


def test_budget_is_per_connection(tokens, user):
    first, second = McpClient(tokens.issue(user)), McpClient(tokens.issue(user))
    for _ in range(60):
        first.post(PING)
    assert first.post(PING).status_code == 429
    assert second.post(PING).status_code == 200


def test_per_user_budget_spans_connections(tokens):
    user = UserFactory()
    clients = [McpClient(tokens.issue(user)) for _ in range(3)]
    statuses = [client.post(PING).status_code for client in clients for _ in range(40)]
    assert statuses.count(200) == 120
    assert clients[0].post(PING).status_code == 429


def test_unauthenticated_requests_spend_no_reads_budget(tokens, mcp):
    McpClient().post(PING)
    assert mcp.post(PING)["X-RateLimit-Remaining"] == "59"


def test_failed_lookups_turn_into_429_after_60_a_minute(tokens):
    stranger = McpClient("mcptest_guess")
    for _ in range(60):
        assert stranger.post(PING).status_code == 401
    assert_error(stranger.post(PING), 429, "rate_limited")


@pytest.mark.parametrize("kind", ["api_key", "v1_token"])
def test_credentials_refused_at_mcp_spend_the_failed_bearer_budget(tokens, user, kind):
    if kind == "api_key":
        _key, secret = make_api_key(user)
    else:
        secret = tokens.issue(user, resource="http://testserver/v1")
    client = McpClient(secret)
    for _ in range(60):
        assert client.post(PING).status_code == 401
    assert_error(client.post(PING), 429, "rate_limited")


def test_limiter_outage_fails_closed_with_503(mcp, monkeypatch):
    class Down:
        def evaluate(self, checks, **kw):
            raise StoreUnavailable("down")

    monkeypatch.setattr(conf, "get_store", lambda: Down())
    response = mcp.post(PING)
    assert_error(response, 503, "rate_limiter_unavailable", type_="api_error")
    assert response["Retry-After"] == "5"
