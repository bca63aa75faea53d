"""Fuzzing /mcp JSON-RPC (docs/spec.md 4.7, 7.4): JSON-RPC results or errors, or the envelope; never a 500."""

import json

import pytest
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from tests.support.oauth import MCP, make_client, tokens_for

from .checks import FUZZ, assert_not_server_error, assert_registered_envelope, fresh_budgets, json_values, nasty_text

MCP_ENVELOPE_CODES = {
    "invalid_token",
    "forbidden",
    "method_not_allowed",
    "unsupported_media_type",
    "not_acceptable",
    "request_too_large",
    "rate_limited",
    "token_in_query",
    "insufficient_scope",
    "invalid_request",
    "invalid_body",
}
METHODS = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "server/discover",
    "notifications/initialized",
    "resources/list",
    "prompts/get",
    "logging/setLevel",
    "completion/complete",
]
VERSIONS = [None, "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01", "garbage"]
json_value = json_values(8)
params = st.one_of(
    json_value,
    st.fixed_dictionaries(
        {},
        optional={
            "name": st.one_of(st.sampled_from(["svc_whoami", "svc_place_call", "whoami", ""]), json_value),
            "arguments": json_value,
            "protocolVersion": st.one_of(st.sampled_from(VERSIONS[1:]), json_value),
            "capabilities": json_value,
            "clientInfo": json_value,
            "cursor": json_value,
            "_meta": json_value,
        },
    ),
)
message = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.one_of(st.just("2.0"), json_value),
        "id": st.one_of(st.integers(), nasty_text, st.none(), json_value),
        "method": st.one_of(st.sampled_from(METHODS), nasty_text, json_value),
        "params": params,
    },
)


def check(response):
    assert_not_server_error(response)
    if response.status_code == 202:
        assert response.content == b""
        return
    body = response.json()
    if isinstance(body, dict) and isinstance(body.get("error"), dict) and "type" in body["error"]:
        assert_registered_envelope(response, MCP_ENVELOPE_CODES)
        return
    assert response.status_code in (200, 400, 404), response.status_code
    assert body["jsonrpc"] == "2.0"
    assert ("result" in body) != ("error" in body), body
    if "error" in body:
        assert isinstance(body["error"]["code"], int)
        assert isinstance(body["error"]["message"], str)
        for marker in ("Traceback", "Exception", 'File "'):
            assert marker not in json.dumps(body["error"]), body
    else:
        assert response.status_code == 200
        result = body["result"]
        assert isinstance(result, dict)
        if result.get("isError"):
            # docs/spec.md 7.4: a tool failure is a plain sentence, no internal detail.
            text = result["content"][0]["text"]
            assert "Traceback" not in text and "Error(" not in text


@pytest.fixture
def mcp_token(db, user):
    return tokens_for(user, make_client(), resource=MCP, scope="rates:read")["access_token"]


def post(token, body: bytes, *, version=None, content_type="application/json", headers=None):
    extra = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    if version:
        extra["MCP-Protocol-Version"] = version
    extra.update(headers or {})
    return Client().generic("POST", "/mcp", body, content_type=content_type, headers=extra)


@pytest.mark.django_db
def test_mcp_fuzzed_messages(mcp_token):
    @FUZZ
    @given(message, st.sampled_from(VERSIONS))
    def run(msg, version):
        fresh_budgets()
        check(post(mcp_token, json.dumps(msg).encode(), version=version))

    run()


@pytest.mark.django_db
def test_mcp_fuzzed_tool_calls(mcp_token):
    @FUZZ
    @given(
        name=st.one_of(st.sampled_from(["svc_whoami", "svc_get_rate", "svc_whoami "]), nasty_text),
        arguments=json_value,
        version=st.sampled_from(VERSIONS),
    )
    def run(name, arguments, version):
        fresh_budgets()
        msg = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        headers = {"Mcp-Method": "tools/call", "Mcp-Name": name.encode("ascii", "ignore").decode()[:50]}
        check(post(mcp_token, json.dumps(msg).encode(), version=version, headers=headers))

    run()


@pytest.mark.django_db
def test_mcp_fuzzed_raw_bodies_and_headers(mcp_token):
    @FUZZ
    @given(
        body=st.one_of(st.binary(max_size=200), json_value.map(lambda v: json.dumps(v).encode())),
        content_type=st.sampled_from(["application/json", "text/plain", "application/json; charset=latin-1", ""]),
        accept=st.sampled_from(["application/json", "text/html", "*/*", "", "text/event-stream"]),
        version=st.sampled_from(VERSIONS),
    )
    def run(body, content_type, accept, version):
        fresh_budgets()
        check(post(mcp_token, body, version=version, content_type=content_type, headers={"Accept": accept}))

    run()


@pytest.mark.django_db
def test_mcp_fuzzed_credentials(db):
    @FUZZ
    @given(st.one_of(nasty_text, st.sampled_from(["sat_", "sk_live_" + "a" * 43, "srt_" + "b" * 43, "Bearer"])))
    def run(token):
        fresh_budgets()
        value = token.encode("latin-1", "ignore").decode("latin-1").replace("\n", "").replace("\r", "")
        response = Client().post(
            "/mcp",
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            content_type="application/json",
            headers={"Authorization": f"Bearer {value}"},
        )
        error = assert_registered_envelope(response, {"invalid_token", "rate_limited"})
        if error["code"] == "invalid_token":
            assert (
                'resource_metadata="http://testserver/.well-known/oauth-protected-resource/mcp"'
                in (response["WWW-Authenticate"])
            )

    run()
