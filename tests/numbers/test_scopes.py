"""numbers:read on svc_list_numbers (docs/spec.md 2.3, 5.9).

Every /v1 route's scope is tests/api_v1/test_resource_routes.py's.
"""

import pytest

from tests.support.envelope import assert_error
from tests.support.mcp import McpClient, install_fake_tokens
from tests.support.scopes import challenge, every_other_scope

from .factories import make_number

pytestmark = pytest.mark.django_db

SCOPE = "numbers:read"
EVERY_OTHER_SCOPE = every_other_scope(SCOPE)
MCP_CHALLENGE = challenge(SCOPE, "mcp")
TOOL = {"name": "svc_list_numbers", "arguments": {}}


def test_the_tool_without_numbers_read_is_a_403_with_the_challenge(user, settings):
    tokens = install_fake_tokens(settings)
    mcp = McpClient(tokens.issue(user, scopes=frozenset(EVERY_OTHER_SCOPE)))
    response = mcp.request("tools/call", TOOL)
    assert_error(response, 403, "insufficient_scope", type_="permission_error")
    assert response["WWW-Authenticate"] == MCP_CHALLENGE


def test_the_tool_with_only_numbers_read_runs(user, settings):
    make_number(user)
    tokens = install_fake_tokens(settings)
    mcp = McpClient(tokens.issue(user, scopes=frozenset({SCOPE})))
    response = mcp.request("tools/call", TOOL)
    assert response.status_code == 200
    result = response.json()["result"]
    assert result.get("isError") is not True
    assert [n["number"] for n in result["structuredContent"]["numbers"]] == ["+442071838750"]
