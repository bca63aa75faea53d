"""Every registered tool that needs a scope, held to the bridge's rules for it (docs/spec.md 2.3, 5.9): a
token holding every other scope is refused with the challenge naming the tool's scope, and a test-mode
credential is refused even with the scope. The scope is checked before the arguments, so none are sent."""

import pytest

from apps.mcp_bridge import registry
from tests.support.envelope import assert_error
from tests.support.mcp import McpClient
from tests.support.scopes import challenge, every_other_scope

pytestmark = pytest.mark.django_db

SCOPED = sorted(name for name, spec in registry.TOOLS.items() if spec.scope is not None)


def call(token, name):
    return McpClient(token).request("tools/call", {"name": name, "arguments": {}})


@pytest.mark.parametrize("name", SCOPED)
def test_without_its_scope_a_tool_is_a_403_with_the_challenge(user, tokens, name):
    scope = registry.TOOLS[name].scope
    response = call(tokens.issue(user, scopes=frozenset(every_other_scope(scope))), name)
    assert_error(response, 403, "insufficient_scope", type_="permission_error")
    assert response["WWW-Authenticate"] == challenge(scope, "mcp")


@pytest.mark.parametrize("name", SCOPED)
def test_a_test_mode_credential_is_refused_even_with_the_scope(user, tokens, name):
    scope = registry.TOOLS[name].scope
    response = call(tokens.issue(user, scopes=frozenset({scope}), livemode=False), name)
    assert response.status_code == 401
