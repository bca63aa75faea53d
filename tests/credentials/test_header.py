"""A credential sent without the ``Bearer`` scheme: still 401 ``invalid_token`` (docs/spec.md 7.2), with a
message that says what is wrong, on /v1 and /mcp alike; the header is never echoed."""

import json

import pytest

from tests.support.envelope import assert_error
from tests.support.mcp import McpClient, install_fake_tokens

pytestmark = pytest.mark.django_db


def test_an_api_key_without_bearer_is_told_the_scheme_is_missing(api, api_key):
    _key, secret = api_key
    response = api.get("/v1/me", HTTP_AUTHORIZATION=secret)
    error = assert_error(response, 401, "invalid_token")
    assert "no Bearer scheme" in error["message"] and "Authorization: Bearer <token>" in error["message"]
    assert secret not in response.content.decode()
    assert "resource_metadata=" in response["WWW-Authenticate"]


@pytest.mark.parametrize("header", ["Token {secret}", "Basic {secret}", "bearer:{secret}"])
def test_another_scheme_is_told_alike(api, api_key, header):
    _key, secret = api_key
    error = assert_error(api.get("/v1/rates", HTTP_AUTHORIZATION=header.format(secret=secret)), 401, "invalid_token")
    assert "no Bearer scheme" in error["message"]


@pytest.mark.parametrize("header", ["Bearer", "Bearer ", "Bearer a b"])
def test_a_bearer_header_without_one_token_is_malformed(api, header):
    error = assert_error(api.get("/v1/me", HTTP_AUTHORIZATION=header), 401, "invalid_token")
    assert "malformed" in error["message"] and "no Bearer scheme" not in error["message"]


def test_a_valid_secret_with_bearer_still_works(api, api_key):
    assert api.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {api_key[1]}").status_code == 200


def test_mcp_says_the_same(settings):
    install_fake_tokens(settings)
    response = McpClient().post_raw(
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}), Authorization="sat_" + "a" * 43
    )
    error = assert_error(response, 401, "invalid_token")
    assert "no Bearer scheme" in error["message"]
