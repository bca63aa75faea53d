"""What every resource app's tests ask alike: a bearer GET, a statement count, a tool call, and the
OpenAPI document's operations, paged lists and path ids (docs/spec.md 2.3, 5.9)."""

import re

import jsonschema
from django.test import Client

from apps.mcp_bridge import registry

# --- REST -------------------------------------------------------------------------------------


def bearer_get(path, secret, **query):
    """GET ``path`` with ``query`` from a fresh client presenting ``secret``."""
    return Client().get(path, query, HTTP_AUTHORIZATION=f"Bearer {secret}")


def assert_statements(count_queries, statements, path, secret, **query):
    """The answer is a 200 that cost exactly ``statements`` (``count_queries``: pytest-django's
    ``django_assert_num_queries``)."""
    with count_queries(statements):
        response = bearer_get(path, secret, **query)
    assert response.status_code == 200, response.content
    return response


# --- MCP tools --------------------------------------------------------------------------------


def read_only_annotations(title: str) -> dict:
    """The annotations of a tool that reads the caller's own data and nothing outside the service."""
    return {
        "title": title,
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }


def listed_read_only_tool(mcp, name, *, title, scope, output) -> dict:
    """The tool as tools/list shows it, held to its title, scope and exact output fields; its input
    schema is left to the caller."""
    tools = {t["name"]: t for t in mcp.request("tools/list").json()["result"]["tools"]}
    tool = tools[name]
    assert tool["title"] == title
    assert set(tool["outputSchema"]["properties"]) == set(tool["outputSchema"]["required"]) == output
    assert tool["outputSchema"]["additionalProperties"] is False
    assert tool["annotations"] == read_only_annotations(title)
    assert registry.TOOLS[name].scope == scope
    return tool


def tool_result(mcp, name, arguments=None) -> dict:
    """The JSON-RPC result of a tools/call answered with a 200."""
    response = mcp.request("tools/call", {"name": name, "arguments": arguments or {}})
    assert response.status_code == 200, response.content
    return response.json()["result"]


def successful_result(mcp, name, arguments=None) -> dict:
    """A call's result that is no error, its structured content valid against the tool's output schema."""
    result = tool_result(mcp, name, arguments)
    assert result.get("isError") is not True, result
    jsonschema.validate(result["structuredContent"], registry.TOOLS[name].output_schema)
    return result


def structured_content(mcp, name, arguments=None) -> dict:
    return successful_result(mcp, name, arguments)["structuredContent"]


# --- The OpenAPI document ---------------------------------------------------------------------

LIMIT_SCHEMA = {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}
CURSORS = ("starting_after", "ending_before")


def get_operation(document, path, operation_id) -> dict:
    """The path's only operation, a GET of that id with a summary."""
    assert set(document["paths"][path]) == {"get"}
    operation = document["paths"][path]["get"]
    assert operation["operationId"] == operation_id
    assert operation["summary"]
    return operation


def parameters(operation) -> dict:
    return {p["name"]: p for p in operation["parameters"]}


def response_schema(operation, status="200") -> dict:
    return operation["responses"][status]["content"]["application/json"]["schema"]


def assert_page_of(document, page_schema, item_schema):
    """The paged list's schema: the envelope's fields, and items of ``item_schema``."""
    listed = document["components"]["schemas"][page_schema]
    assert set(listed["required"]) == {"object", "data", "has_more", "url"}
    assert listed["properties"]["data"]["items"] == {"$ref": f"#/components/schemas/{item_schema}"}


def paged_list_parameters(operation, *, cursor_format, id_prefix, filters=()) -> dict:
    """A paged list's parameters (``limit``, the two cursors of ``id_prefix`` ids, the version header
    and ``filters``), held to their shared schemas; returned for the list's own checks."""
    params = parameters(operation)
    assert set(params) == {"limit", *CURSORS, "Service-Version", *filters}
    assert params["limit"]["schema"] == LIMIT_SCHEMA
    for cursor in CURSORS:
        assert params[cursor]["schema"] == {"type": "string", "format": cursor_format}
        assert id_prefix in params[cursor]["description"]
    return params


def assert_path_id(document, path, name, made_id):
    """The path's id parameter is required and its pattern matches an id the app makes."""
    path_id = parameters(document["paths"][path]["get"])[name]
    assert path_id["in"] == "path" and path_id["required"] is True
    assert re.fullmatch(path_id["schema"]["pattern"], made_id)
