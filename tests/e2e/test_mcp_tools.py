"""End to end: the official MCP SDK client lists every tool and calls each one against a live server.

One OAuth dance (dynamic registration, sign-in, consent to every scope), then
``tools/list`` and a ``tools/call`` of each tool on the demo account that
``manage.py seed_demo`` filled. Every result must validate against the tool's
own ``outputSchema`` and every input schema must be one that every mainstream
client accepts: property names of ``^[a-zA-Z0-9_.-]{1,64}$``, no ``$schema``,
no ``anyOf``/``oneOf``.
"""

import re

import pytest
from jsonschema import Draft202012Validator

from .assistant import Assistant, run

pytestmark = pytest.mark.e2e

# The read tools: read-only and harmless.
TOOLS = {
    "svc_whoami",
    "svc_get_rate",
    "svc_get_balance",
    "svc_list_calls",
    "svc_get_call",
    "svc_get_call_summary",
    "svc_search_contacts",
    "svc_list_numbers",
    "svc_read_messages",
}
# They act, so they are neither read-only nor all harmless (tests/calls checks their annotations).
CALLBACK_TOOLS = {"svc_quote_call", "svc_place_call", "svc_end_call"}
PROPERTY_NAME = re.compile(r"^[a-zA-Z0-9_.-]{1,64}$")


def walk(schema):
    """Every sub-schema of a JSON schema (dicts only)."""
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from walk(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from walk(value)


def assert_portable_input_schema(tool):
    schema = tool.input_schema
    assert schema["type"] == "object"
    for part in walk(schema):
        assert "$schema" not in part, tool.name
        assert "anyOf" not in part and "oneOf" not in part, tool.name
        for name in part.get("properties", {}) if isinstance(part.get("properties"), dict) else ():
            assert PROPERTY_NAME.match(name), (tool.name, name)


def assert_valid_result(tool, result):
    assert result.is_error is False, (tool.name, result.content)
    Draft202012Validator(tool.output_schema).validate(result.structured_content)
    assert isinstance(result.structured_content.get("spoken"), str), tool.name
    assert result.content and result.content[0].type == "text"


async def every_tool(assistant):
    async with assistant.http() as http, assistant.session(http) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        results = {"svc_whoami": await client.call_tool("svc_whoami", {})}
        results["svc_get_rate"] = await client.call_tool("svc_get_rate", {"destination": "+14155550123"})
        results["svc_get_rate (country)"] = await client.call_tool("svc_get_rate", {"destination": "Germany"})
        results["svc_get_balance"] = await client.call_tool("svc_get_balance", {})
        calls = await client.call_tool("svc_list_calls", {"limit": 10})
        results["svc_list_calls"] = calls
        first = calls.structured_content["calls"][0]["id"]
        results["svc_list_calls (next page)"] = await client.call_tool(
            "svc_list_calls", {"limit": 2, "starting_after": first}
        )
        results["svc_get_call"] = await client.call_tool("svc_get_call", {"call_id": first})
        results["svc_search_contacts"] = await client.call_tool("svc_search_contacts", {"query": "a", "limit": 5})
        results["svc_list_numbers"] = await client.call_tool("svc_list_numbers", {})
        # A call without a transcript, or summaries switched off: an isError result, never a JSON-RPC error.
        summary = await client.call_tool("svc_get_call_summary", {"call_id": first})
        unknown = await client.call_tool("svc_get_call", {"call_id": "call_" + "0" * 24})
        return listed, results, summary, unknown


def test_every_tool_end_to_end(service):
    listed, results, summary, unknown = run(every_tool, Assistant(service))

    assert set(listed) == TOOLS | CALLBACK_TOOLS
    for name, tool in listed.items():
        assert tool.title
        if name in TOOLS:
            assert tool.annotations.read_only_hint is True
            assert tool.annotations.destructive_hint is False
        assert_portable_input_schema(tool)
    for label, result in results.items():
        assert_valid_result(listed[label.split(" ")[0]], result)
    assert results["svc_get_rate (country)"].structured_content["estimate"] is True
    assert results["svc_get_rate"].structured_content["estimate"] is False
    assert len(results["svc_search_contacts"].structured_content["contacts"]) <= 5
    assert results["svc_list_numbers"].structured_content["numbers"]
    assert summary.is_error is True and summary.content[0].text
    assert unknown.is_error is True and unknown.content[0].text
