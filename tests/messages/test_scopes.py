"""messages:read on every messages endpoint and on svc_read_messages; messages:history beyond 60 minutes
(DESIGN, Phase 3; docs/spec.md 2.3, 5.9)."""

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


@pytest.mark.parametrize("scopes", [every_other_scope(SCOPE), ["messages:history"], ["numbers:read"]])
@pytest.mark.parametrize("livemode", [True, False])
def test_a_key_without_messages_read_is_refused_with_the_challenge(user, paths, client, scopes, livemode):
    _key, secret = make_api_key(user, scopes=scopes, livemode=livemode)
    for path in paths:
        response = client.get(path, HTTP_AUTHORIZATION=f"Bearer {secret}")
        assert_error(response, 403, "insufficient_scope", type_="permission_error")
        assert response["WWW-Authenticate"] == challenge(SCOPE, "v1")


@pytest.mark.parametrize("scopes", [[SCOPE], [SCOPE, "messages:history"]])
def test_a_key_with_messages_read_is_served(user, paths, client, scopes):
    _key, secret = make_api_key(user, scopes=scopes)
    for path in paths:
        assert client.get(path, HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200, path


def test_an_oauth_token_for_v1_needs_messages_read_too(user, paths, client, settings):
    tokens = install_fake_tokens(settings)
    resource = "http://testserver/v1"
    without = tokens.issue(user, scopes=frozenset(every_other_scope(SCOPE)), resource=resource)
    with_it = tokens.issue(user, scopes=frozenset({SCOPE}), resource=resource)
    for path in paths:
        assert_error(client.get(path, HTTP_AUTHORIZATION=f"Bearer {without}"), 403, "insufficient_scope")
        assert client.get(path, HTTP_AUTHORIZATION=f"Bearer {with_it}").status_code == 200


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
