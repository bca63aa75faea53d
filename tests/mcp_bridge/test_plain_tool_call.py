"""A tools/call of the handshake era, written as the SDKs write it, is answered without the SDK's models;
the answer must be the one the SDK's own parsing and serialiser give, for every handshake version."""

import json
import re
from unittest import mock

import mcp_types as sdk_types
import pytest
from mcp_types import methods
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from apps.mcp_bridge import protocol, registry
from tests.support.mcp import MODERN, McpClient

CALLS = [
    {"name": "svc_whoami"},
    {"name": "svc_whoami", "arguments": {}},
    {"name": "svc_whoami", "arguments": None},
    {"name": "svc_get_rate", "arguments": {"to": "+442071838750"}},
    {"name": "svc_get_rate", "arguments": {"to": 5}},  # its input schema refuses it
    {"name": "svc_get_rate", "arguments": {}},
    {"name": "svc_list_calls", "arguments": {"limit": 3}},  # a scope the token lacks
    {"name": "svc_nope", "arguments": {}},
    {"name": "svc_whoami", "arguments": {"extra": [1, {"x": None}], "ünï": "çødé"}},
]


def without_plain_path():
    return mock.patch.object(protocol, "plain_tool_call", return_value=None)


def answer(response):
    """Status and body, the request's own id left out (an HTTP-level error names it)."""
    return response.status_code, re.sub(rb'"req_[0-9A-Za-z]+"', b'"req_"', response.content)


@pytest.mark.django_db
@pytest.mark.parametrize("version", [*HANDSHAKE_PROTOCOL_VERSIONS, None])
@pytest.mark.parametrize("params", CALLS)
@pytest.mark.parametrize("request_id", [7, "req-7"])
def test_the_plain_path_answers_as_the_sdks_path(tokens, user, version, params, request_id):
    mcp = McpClient(tokens.issue(user, scopes=frozenset({"rates:read"})))
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    decoded = json.loads(json.dumps(message))
    assert protocol.plain_tool_call(decoded, version) is not None  # the case takes the plain path
    plain = mcp.post(message, version=version)
    with without_plain_path():
        through_sdk = mcp.post(message, version=version)
    assert answer(plain) == answer(through_sdk)  # the same bytes, keys in the same order


NOT_PLAIN = [
    {"jsonrpc": "2.0", "id": True, "method": "tools/call", "params": {"name": "svc_whoami"}},
    {"jsonrpc": "2.0", "id": 1.5, "method": "tools/call", "params": {"name": "svc_whoami"}},
    {"jsonrpc": "2.0", "id": None, "method": "tools/call", "params": {"name": "svc_whoami"}},
    {"jsonrpc": "1.0", "id": 1, "method": "tools/call", "params": {"name": "svc_whoami"}},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": []},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 5}},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "svc_whoami", "arguments": []}},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "svc_whoami", "_meta": {}}},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "svc_whoami"}, "extra": 1},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": {}}},
]


@pytest.mark.parametrize("decoded", NOT_PLAIN)
def test_any_other_shape_takes_the_sdks_path(decoded):
    assert protocol.plain_tool_call(decoded, "2025-11-25") is None


def test_a_modern_version_takes_the_sdks_path():
    decoded = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "svc_whoami"}}
    assert protocol.plain_tool_call(decoded, MODERN) is None
    assert protocol.plain_tool_call(decoded, "1999-01-01") is None


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
def test_every_plain_request_is_one_the_sdks_models_accept_alike(version):
    for params in CALLS:
        decoded = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}
        plain = protocol.plain_tool_call(decoded, version)
        sdk_types.JSONRPCRequest.model_validate(decoded)
        parsed = methods.parse_client_request("tools/call", version, params)
        assert (plain.params.name, plain.params.arguments) == (parsed.params.name, parsed.params.arguments)


RESULTS = [
    registry.structured_result({"name": "Ada", "email": "ada@example.com", "spoken": "You are Ada."}),
    registry.structured_result({"data": [{"a": None, "b": [1, 2.5, True, {"c": "ü"}]}], "has_more": False}),
    registry.structured_result({}),
    registry.failure_result("The service is unavailable."),
]


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
@pytest.mark.parametrize("result", RESULTS)
def test_a_tools_result_is_written_as_the_sdks_serialiser_writes_it(version, result):
    expected = methods.serialize_server_result("tools/call", version, result)
    assert json.dumps(protocol.plain_tool_result(result)) == json.dumps(expected)


@pytest.mark.parametrize(
    "result",
    [
        {"content": [{"type": "image", "data": "", "mimeType": "image/png"}], "isError": False},
        {"content": [{"type": "text", "text": "x", "annotations": {}}], "isError": False},
        {"content": [], "isError": False, "structuredContent": []},
        {"content": [], "isError": 0},
        {"content": [], "isError": False, "_meta": {}},
    ],
)
def test_any_other_result_is_left_to_the_sdks_serialiser(result):
    assert protocol.plain_tool_result(result) is None
