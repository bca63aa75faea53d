"""The assistant's whole MCP flow against a live server: every tool called once through the official
SDK client (tests/e2e/test_mcp_tools.py runs it on the suite's server, tests/e2e/test_pgbouncer.py
through PgBouncer)."""

from jsonschema import Draft202012Validator

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
