"""/mcp: every request counts against the reads budget (docs/spec.md 4.7, 8.1), headers on every answer."""

import pytest

from tests.support.factories import UserFactory
from tests.support.mcp import McpClient, install_fake_tokens

pytestmark = pytest.mark.django_db


@pytest.fixture
def tokens(settings):
    return install_fake_tokens(settings)


def test_sixty_requests_a_minute_per_connection_then_the_429_envelope(tokens, store):
    user = UserFactory()
    mcp = McpClient(tokens.issue(user))
    first = mcp.request("tools/list")
    assert first.status_code == 200
    assert first["RateLimit"] == "limit=60, remaining=59, reset=0"
    assert first["RateLimit-Policy"] == "60;w=60"
    for _ in range(59):
        assert mcp.request("tools/list").status_code == 200
    denied = mcp.request("tools/list")
    assert denied.status_code == 429
    error = denied.json()["error"]
    assert error["code"] == "rate_limited"
    assert error["message"] == "Too many requests. Retry in 1 second."
    assert denied["Retry-After"] == "1"
    assert denied["RateLimit"] == "limit=60, remaining=0, reset=1"
    # A second connection of the same user has its own 60, within the user's 120.
    other = McpClient(tokens.issue(user))
    assert other.request("tools/list").status_code == 200


def test_even_a_malformed_json_rpc_body_counts(tokens, store):
    mcp = McpClient(tokens.issue(UserFactory()))
    mcp.post(b"{not json")
    assert mcp.request("tools/list")["X-RateLimit-Remaining"] == "58"
