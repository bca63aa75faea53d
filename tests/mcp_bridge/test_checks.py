"""mcp_bridge.E001-E003: every tool's scope is in the scope table, its output schema and annotations present."""

from dataclasses import replace

from apps.mcp_bridge.checks import check_tools, tool_errors
from apps.mcp_bridge.registry import TOOLS


def a_tool():
    return TOOLS["svc_list_numbers"]


def test_every_registered_tool_passes():
    assert TOOLS and check_tools(None) == []


def test_a_scope_missing_from_the_scope_table_is_refused():
    errors = tool_errors([replace(a_tool(), scope="voicemails:read")])
    assert [e.id for e in errors] == ["mcp_bridge.E001"]
    assert "voicemails:read" in errors[0].msg


def test_an_output_schema_without_its_properties_is_refused():
    bare = {"type": "object"}
    assert [e.id for e in tool_errors([replace(a_tool(), output_schema=bare)])] == ["mcp_bridge.E002"]


def test_a_tool_without_a_title_or_an_annotation_is_refused():
    assert [e.id for e in tool_errors([replace(a_tool(), title=" ")])] == ["mcp_bridge.E003"]
    assert [e.id for e in tool_errors([replace(a_tool(), read_only=None)])] == ["mcp_bridge.E003"]
