"""messages:read on every messages endpoint and on svc_read_messages; messages:history beyond 60 minutes
(docs/design.md, Phase 3; docs/spec.md 2.3, 5.9)."""

import pytest

from tests.support.envelope import assert_error
from tests.support.factories import make_api_key
from tests.support.mcp import McpClient, install_fake_tokens
from tests.support.scopes import challenge, every_other_scope

from .factories import make_message, make_sms_number

pytestmark = pytest.mark.django_db

SCOPE = "messages:read"


@pytest.fixture
def paths(user):
    number = make_sms_number(user)
    message = make_message(number)
    return ["/v1/messages", f"/v1/messages/{message.id}", f"/v1/messages?number={number.id}"]


# A key without messages:read at all is tests/api_v1/test_resource_routes.py's, for every route and
# an OAuth token too; here, messages:history alone does not read messages.
def test_history_without_messages_read_is_refused_with_the_challenge(user, paths, client):
    _key, secret = make_api_key(user, scopes=["messages:history"])
    for path in paths:
        response = client.get(path, HTTP_AUTHORIZATION=f"Bearer {secret}")
        assert_error(response, 403, "insufficient_scope", type_="permission_error")
        assert response["WWW-Authenticate"] == challenge(SCOPE, "v1")


@pytest.mark.parametrize("scopes", [[SCOPE], [SCOPE, "messages:history"]])
def test_a_key_with_messages_read_is_served(user, paths, client, scopes):
    _key, secret = make_api_key(user, scopes=scopes)
    for path in paths:
        assert client.get(path, HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200, path


def test_the_tool_needs_messages_read(user, paths, settings):
    tokens = install_fake_tokens(settings)
    request = {"name": "svc_read_messages", "arguments": {}}
    response = McpClient(tokens.issue(user, scopes=frozenset(every_other_scope(SCOPE)))).request("tools/call", request)
    assert_error(response, 403, "insufficient_scope")
    assert response["WWW-Authenticate"] == challenge(SCOPE, "mcp")
    response = McpClient(tokens.issue(user, scopes=frozenset({SCOPE}))).request("tools/call", request)
    assert response.json()["result"]["isError"] is False


def test_the_scopes_are_sensitive():
    from apps.credentials.scopes import SENSITIVE_SCOPES

    assert {"messages:read", "messages:history"} <= set(SENSITIVE_SCOPES)
