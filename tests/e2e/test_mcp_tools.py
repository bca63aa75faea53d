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

from .assistant import Assistant, run
from .tool_flow import CALLBACK_TOOLS, TOOLS, assert_valid_result, every_tool

pytestmark = pytest.mark.e2e

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
