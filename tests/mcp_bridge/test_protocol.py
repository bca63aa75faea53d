"""The JSON-RPC half of /mcp: handshake era and 2026-07-28, methods, tools, errors (docs/spec.md 4.7, 7.4)."""

import json
from unittest import mock

import jsonschema
import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from apps.mcp_bridge import registry
from apps.mcp_bridge.protocol import INSTRUCTIONS
from tests.support.envelope import assert_error
from tests.support.mcp import HANDSHAKE, MODERN, McpClient

pytestmark = pytest.mark.django_db

CLIENT_INFO = {"name": "pytest", "version": "1"}


def initialize(mcp, version):
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT_INFO}
    return mcp.request("initialize", params, version=None)


def rpc_error(response, status, code):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert "result" not in body
    assert body["error"]["code"] == code
    assert body["error"]["message"]
    return body


def result(response):
    assert response.status_code == 200, response.content
    body = response.json()
    assert "error" not in body, body
    return body["result"]


# --- handshake era -------------------------------------------------------------


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", *HANDSHAKE_PROTOCOL_VERSIONS])
def test_initialize_echoes_a_supported_version(mcp, version):
    body = result(initialize(mcp, version))
    assert body["protocolVersion"] == version
    assert body["serverInfo"] == {"name": "service", "version": "0.1.0"}
    assert body["capabilities"] == {"tools": {"listChanged": False}}
    assert body["instructions"] == INSTRUCTIONS


@pytest.mark.parametrize("version", ["2099-01-01", "2026-07-28", "banana"])
def test_initialize_offers_the_newest_handshake_version_otherwise(mcp, version):
    assert result(initialize(mcp, version))["protocolVersion"] == "2025-11-25"


def test_instructions_say_what_spec_4_7_requires():
    text = INSTRUCTIONS.lower()
    assert "personal account" in text
    assert "report what a tool returned" in text
    assert "do not invent numbers, prices or call details" in text


def test_initialized_notification_is_202_with_empty_body(mcp):
    response = mcp.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, version=HANDSHAKE)
    assert response.status_code == 202
    assert response.content == b""


def test_any_notification_is_acknowledged(mcp):
    message = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}
    assert mcp.post(message, version=HANDSHAKE).status_code == 202


def test_ping(mcp):
    assert result(mcp.request("ping")) == {}


def test_no_initialize_is_needed_first(mcp):
    # Stateless: each POST stands alone, so tools/list works without a handshake in this process.
    assert result(mcp.request("tools/list"))["tools"]


def test_request_without_version_header_is_served_as_2025_03_26(mcp):
    tools = result(mcp.request("tools/list", version=None))["tools"]
    assert "svc_whoami" in [t["name"] for t in tools]


def test_tools_list_describes_svc_whoami(mcp):
    body = result(mcp.request("tools/list"))
    assert "nextCursor" not in body
    (tool,) = [tool for tool in body["tools"] if tool["name"] == "svc_whoami"]
    assert tool["title"] == "Who am I"
    assert tool["description"]
    assert tool["annotations"] == {
        "title": "Who am I",
        "readOnlyHint": True,
        "idempotentHint": True,
        "destructiveHint": False,
        "openWorldHint": False,
    }
    assert tool["inputSchema"] == {"type": "object", "properties": {}, "additionalProperties": False}
    assert tool["outputSchema"]["required"] == ["email", "display_name", "spoken"]


def test_every_tool_is_svc_prefixed_and_titled(mcp):
    for tool in result(mcp.request("tools/list"))["tools"]:
        assert tool["name"].startswith("svc_")
        assert tool["title"]
        assert tool["outputSchema"]["type"] == "object"


def whoami_checks(body, tools):
    assert body["isError"] is False
    structured = body["structuredContent"]
    assert structured == {
        "email": "ada@example.com",
        "display_name": "Ada Lovelace",
        "spoken": "You are connected as Ada Lovelace (ada@example.com).",
    }
    (schema,) = [t["outputSchema"] for t in tools if t["name"] == "svc_whoami"]
    jsonschema.validate(structured, schema)
    (text,) = body["content"]
    assert text["type"] == "text"
    assert json.loads(text["text"]) == structured


@pytest.mark.parametrize("arguments", [None, {}])
def test_whoami_returns_the_users_name_and_email(mcp, arguments):
    params = {"name": "svc_whoami"}
    if arguments is not None:
        params["arguments"] = arguments
    body = result(mcp.request("tools/call", params))
    whoami_checks(body, result(mcp.request("tools/list"))["tools"])


def test_whoami_spoken_is_one_line(tokens):
    from tests.support.factories import UserFactory

    user = UserFactory(display_name="Ada\nLovelace ", email="ada2@example.com")
    mcp = McpClient(tokens.issue(user))
    spoken = result(mcp.request("tools/call", {"name": "svc_whoami"}))["structuredContent"]["spoken"]
    assert spoken == "You are connected as Ada Lovelace (ada2@example.com)."


def test_unknown_tool_is_invalid_params(mcp):
    body = rpc_error(mcp.request("tools/call", {"name": "svc_nope"}), 200, -32602)
    assert "tools/list" in body["error"]["message"]


@pytest.mark.parametrize(
    "params",
    [
        {"name": "svc_whoami", "arguments": {"extra": 1}},
        {"name": "svc_whoami", "arguments": "not an object"},
        {"name": "svc_whoami", "arguments": [1]},
        {"arguments": {}},
        {"name": 42},
    ],
)
def test_malformed_arguments_are_invalid_params(mcp, params):
    rpc_error(mcp.request("tools/call", params), 200, -32602)


def test_tools_call_without_params_is_invalid_params(mcp):
    rpc_error(mcp.request("tools/call"), 200, -32602)


def nested(depth, container=list):
    value = container()
    for _ in range(depth - 1):
        value = [value] if container is list else {"a": value}
    return value


@pytest.mark.parametrize("container", [list, dict])
@pytest.mark.parametrize("depth", [33, 400, 600])
@pytest.mark.parametrize("tool", ["svc_whoami", "svc_search_contacts", "svc_get_rate"])
def test_arguments_nested_deeply_are_invalid_params_never_a_500(tokens, user, caplog, tool, depth, container):
    """Arguments hundreds of levels deep are -32602 like any other invalid arguments."""
    mcp = McpClient(tokens.issue(user, scopes=frozenset({"account:read", "contacts:read", "rates:read"})))
    arguments = {"query": nested(depth, container)}
    body = rpc_error(mcp.request("tools/call", {"name": tool, "arguments": arguments}), 200, -32602)
    assert "nested" in body["error"]["message"]
    assert "Traceback" not in caplog.text


def test_arguments_as_deep_as_allowed_get_the_schemas_own_answer(mcp):
    body = rpc_error(mcp.request("tools/call", {"name": "svc_whoami", "arguments": {"extra": nested(31)}}), 200, -32602)
    assert "nested" not in body["error"]["message"]
    assert "svc_whoami" in body["error"]["message"]


@pytest.mark.parametrize("method", ["resources/list", "prompts/list", "nope/nope", "server/discover", "tasks/list"])
def test_unknown_or_unserved_methods_are_method_not_found(mcp, method):
    body = rpc_error(mcp.request(method), 200, -32601)
    assert body["id"] is not None


def test_malformed_json_is_parse_error(mcp):
    body = rpc_error(mcp.post(b'{"jsonrpc": "2.0", "id": 1, "method": '), 400, -32700)
    assert body["id"] is None


def test_non_utf8_body_is_parse_error(mcp):
    rpc_error(mcp.post(b"\xff\xfe{}"), 400, -32700)


@pytest.mark.parametrize(
    "message",
    [
        [{"jsonrpc": "2.0", "id": 1, "method": "ping"}],
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]},
        "ping",
        42,
        {"method": "notifications/initialized", "jsonrpc": "1.0"},
    ],
)
def test_bodies_that_are_not_one_request_are_invalid_request(mcp, message):
    rpc_error(mcp.post(message, version=HANDSHAKE), 400, -32600)


def test_string_ids_are_echoed(mcp):
    response = mcp.post({"jsonrpc": "2.0", "id": "abc", "method": "ping"})
    assert response.json() == {"jsonrpc": "2.0", "id": "abc", "result": {}}


# --- tool failures ----------------------------------------------------------------


@pytest.fixture
def extra_tool():

    def add(**kwargs):
        spec = registry.ToolSpec(
            title="Test tool",
            description="For tests.",
            output_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}},
            **kwargs,
        )
        registry.register(spec)
        return spec

    with mock.patch.dict(registry.TOOLS):
        yield add


def test_business_failure_is_an_is_error_result(mcp, extra_tool):
    def refuse(*, principal, arguments):
        raise registry.ToolFailure("This connection was revoked. Ask the user to reconnect the app.")

    extra_tool(name="svc_test_refuse", handler=refuse)
    body = result(mcp.request("tools/call", {"name": "svc_test_refuse"}))
    assert body["isError"] is True
    assert body["content"] == [
        {"type": "text", "text": "This connection was revoked. Ask the user to reconnect the app."}
    ]
    assert "structuredContent" not in body


def test_unexpected_tool_exception_is_an_is_error_result_without_detail(mcp, extra_tool, caplog):
    def explode(*, principal, arguments):
        raise RuntimeError("secret internal detail")

    extra_tool(name="svc_test_explode", handler=explode)
    response = mcp.request("tools/call", {"name": "svc_test_explode"})
    body = result(response)
    assert body["isError"] is True
    assert "temporarily unavailable" in body["content"][0]["text"]
    assert b"secret internal detail" not in response.content
    assert "svc_test_explode" in caplog.text


def test_structured_content_breaking_the_output_schema_is_never_sent(mcp, extra_tool, caplog):
    extra_tool(name="svc_test_bad_output", handler=lambda **kw: {"ok": "not a boolean"})
    response = mcp.request("tools/call", {"name": "svc_test_bad_output"})
    body = result(response)
    assert body["isError"] is True
    assert "structuredContent" not in body
    assert b"not a boolean" not in response.content
    assert "outputSchema" in caplog.text


def test_tool_needing_a_scope_the_token_lacks_is_403_step_up(mcp, extra_tool):
    extra_tool(name="svc_test_scoped", handler=lambda **kw: {"ok": True}, scope="calls:read")
    response = mcp.request("tools/call", {"name": "svc_test_scoped"})
    assert_error(response, 403, "insufficient_scope", type_="permission_error")
    assert response["WWW-Authenticate"].startswith('Bearer error="insufficient_scope", scope="calls:read"')


def test_scope_is_checked_before_the_arguments(mcp, extra_tool):
    """A token without the tool's scope gets the step-up challenge whatever its arguments hold."""
    extra_tool(
        name="svc_test_scoped",
        handler=lambda **kw: {"ok": True},
        scope="calls:read",
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
    )
    response = mcp.request("tools/call", {"name": "svc_test_scoped", "arguments": {"bogus": 1}})
    assert_error(response, 403, "insufficient_scope", type_="permission_error")
    assert response["WWW-Authenticate"].startswith('Bearer error="insufficient_scope", scope="calls:read"')


def test_tool_with_its_scope_runs(tokens, user, extra_tool):
    extra_tool(name="svc_test_scoped", handler=lambda **kw: {"ok": True}, scope="calls:read")
    mcp = McpClient(tokens.issue(user, scopes=frozenset({"calls:read"})))
    assert result(mcp.request("tools/call", {"name": "svc_test_scoped"}))["structuredContent"] == {"ok": True}


def test_tool_names_must_be_svc_prefixed():
    with pytest.raises(ValueError, match="svc_"):
        registry.ToolSpec(name="whoami", title="x", description="x", handler=lambda **kw: {}, output_schema={})


def test_tools_cannot_be_registered_twice():
    with pytest.raises(ValueError, match="twice"):
        registry.register(registry.TOOLS["svc_whoami"])


# --- 2026-07-28 ---------------------------------------------------------------------


def test_discover_is_served_at_2026(mcp):
    body = result(mcp.modern("server/discover"))
    assert body["supportedVersions"] == [MODERN]
    assert body["capabilities"] == {"tools": {"listChanged": False}}
    assert body["instructions"] == INSTRUCTIONS
    assert body["resultType"] == "complete"
    assert body["cacheScope"] == "private"
    assert body["ttlMs"] == 0
    assert body["_meta"]["io.modelcontextprotocol/serverInfo"] == {"name": "service", "version": "0.1.0"}


def test_tools_list_and_call_at_2026(mcp):
    listed = result(mcp.modern("tools/list"))
    assert listed["resultType"] == "complete"
    assert listed["cacheScope"] == "private"
    body = result(mcp.modern("tools/call", {"name": "svc_whoami", "arguments": {}}))
    assert body["resultType"] == "complete"
    assert body["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "service"
    whoami_checks(body, listed["tools"])


def test_handshake_results_carry_no_2026_fields(mcp):
    body = result(mcp.request("tools/list"))
    assert not {"resultType", "cacheScope", "ttlMs", "_meta"} & set(body)


@pytest.mark.parametrize("method", ["initialize", "ping", "nope/nope"])
def test_methods_not_in_2026_are_method_not_found_404(mcp, method):
    rpc_error(mcp.modern(method), 404, -32601)


def test_unknown_tool_at_2026_is_invalid_params_400(mcp):
    rpc_error(mcp.modern("tools/call", {"name": "svc_nope"}), 400, -32602)


def test_unsupported_version_is_32022_naming_ours(mcp):
    body = rpc_error(mcp.modern("tools/list", version="2099-01-01"), 400, -32022)
    assert body["error"]["data"] == {"supported": [MODERN], "requested": "2099-01-01"}


def test_missing_meta_envelope_is_invalid_params(mcp):
    response = mcp.request("tools/list", {}, version=MODERN, headers={"Mcp-Method": "tools/list"})
    rpc_error(response, 400, -32602)


@pytest.mark.parametrize(
    "headers",
    [{"Mcp-Method": "tools/list"}, {"Mcp-Name": "svc_other"}],
)
def test_routing_headers_must_match_the_body(mcp, headers):
    rpc_error(mcp.modern("tools/call", {"name": "svc_whoami"}, headers=headers), 400, -32020)


def test_notification_at_2026_is_202(mcp):
    message = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    assert mcp.post(message, version=MODERN).status_code == 202


def test_notification_at_unsupported_version_is_refused(mcp):
    message = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    rpc_error(mcp.post(message, version="2099-01-01"), 400, -32022)


def test_parse_error_at_2026_is_400(mcp):
    rpc_error(mcp.post(b"{", version=MODERN), 400, -32700)


@pytest.mark.parametrize("value", ["a\x00b", "\ud800", "line\nbreak"])
def test_tool_arguments_with_control_characters_are_invalid_params(mcp, value):
    """The input guard of every surface holds for tool arguments: JSON-RPC -32602, the tool never runs."""
    called = []
    spec = registry.ToolSpec(
        name="svc_echo_guard",
        title="Echo",
        description="Test tool.",
        handler=lambda *, principal, arguments: called.append(arguments) or {"spoken": "ok"},
        input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "additionalProperties": False},
        output_schema={"type": "object", "properties": {"spoken": {"type": "string"}}},
    )
    with mock.patch.dict(registry.TOOLS):
        registry.register(spec)
        body = json.loads(mcp.request("tools/call", {"name": "svc_echo_guard", "arguments": {"text": value}}).content)
    assert body["error"]["code"] == -32602
    assert called == []


@pytest.mark.parametrize("method", ["tools/list", "tools/call", "initialize"])
def test_a_version_header_we_do_not_speak_is_32022_listing_every_version_we_speak(mcp, method):
    # A plain request, without the 2026 envelope: the version is what is wrong, not the missing _meta.
    params = {"name": "svc_whoami", "arguments": {}} if method == "tools/call" else {}
    response = mcp.request(method, params, version="1999-01-01")
    body = rpc_error(response, 400, -32022)
    message = body["error"]["message"]
    assert "_meta" not in message
    for version in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN):
        assert version in message
    assert body["error"]["data"] == {"supported": [MODERN], "requested": "1999-01-01"}
