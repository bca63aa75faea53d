"""An insufficient_scope refusal says how to get a credential with the scope (docs/spec.md 2.3: credentials
never gain scopes): a new API key, or connecting the app again."""

import pytest

from tests.support.envelope import assert_error
from tests.support.factories import make_api_key
from tests.support.mcp import install_fake_tokens

pytestmark = pytest.mark.django_db

SCOPE = "numbers:read"


@pytest.mark.parametrize("method", ["get", "head", "options"])
def test_a_keys_refusal_says_how_to_get_a_key_with_the_scope(user, client, method):
    # make apikey's read-only starter key, asking for numbers: the fix is a new key (keys never gain scopes).
    _key, secret = make_api_key(user, scopes=["rates:read", "credits:read", "calls:read", "contacts:read"])
    response = getattr(client, method)("/v1/numbers", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 403
    if method != "head":
        message = assert_error(response, 403, "insufficient_scope")["message"]
        assert "this API key was not given" in message
        assert f"create a key with {SCOPE} at http://testserver/settings/api-keys" in message


def test_an_apps_refusal_says_to_connect_again(user, client, settings):
    tokens = install_fake_tokens(settings)
    token = tokens.issue(user, scopes=frozenset({"rates:read"}), resource="http://testserver/v1")
    message = assert_error(client.get("/v1/numbers", HTTP_AUTHORIZATION=f"Bearer {token}"), 403, "insufficient_scope")[
        "message"
    ]
    assert "this connection was not given" in message and "Connect the app again" in message
