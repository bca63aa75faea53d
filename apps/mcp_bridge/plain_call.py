"""The common tools/call, without the SDK's models: the shape almost every request has.

Almost every request is a tools/call of the handshake era written as the SDKs write it. For that
exact shape the SDK's parsing (three model validations) and its result serialiser (a fourth, and
a dump) decide nothing that the checks here do not: tests/mcp_bridge/test_plain_tool_call.py
holds both paths to the same answers for every handshake version, and any other shape takes the
SDK's path (``protocol.handle``).
"""

from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

PLAIN_REQUEST_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
PLAIN_PARAMS_KEYS = (frozenset({"name"}), frozenset({"name", "arguments"}))


@dataclass(frozen=True)
class PlainParams:
    """What ``on_tools_call`` reads of ``types.CallToolRequestParams``; building the model without
    validating it (``model_construct``) cost more than every check here."""

    name: str
    arguments: dict[str, Any] | None


@dataclass(frozen=True)
class PlainToolCall:
    request_id: int | str
    version: str
    params: PlainParams


def plain_tool_call(decoded: Any, header_version: str | None) -> PlainToolCall | None:
    """``decoded`` as a tools/call the SDK's models would accept as they are, or None for their path."""
    if type(decoded) is not dict or decoded.keys() != PLAIN_REQUEST_KEYS:
        return None
    request_id, params = decoded["id"], decoded["params"]
    if decoded["jsonrpc"] != "2.0" or decoded["method"] != "tools/call" or type(request_id) not in (int, str):
        return None
    if type(params) is not dict or params.keys() not in PLAIN_PARAMS_KEYS or type(params["name"]) is not str:
        return None
    arguments = params.get("arguments")
    if arguments is not None and type(arguments) is not dict:
        return None
    version = header_version or types.DEFAULT_NEGOTIATED_VERSION
    if version not in HANDSHAKE_PROTOCOL_VERSIONS:
        return None
    return PlainToolCall(request_id, version, PlainParams(params["name"], arguments))


def plain_tool_result(result: dict) -> dict | None:
    """What the SDK's serialiser gives for a handshake version for a result built by
    ``registry.structured_result`` or ``registry.failure_result`` (the 2026 ``resultType`` dropped),
    or None for any other result."""
    content = result.get("content")
    if not result.keys() <= {"content", "structuredContent", "isError", "resultType"} or type(content) is not list:
        return None
    if type(result.get("isError")) is not bool or type(result.get("structuredContent", {})) is not dict:
        return None
    texts = []
    for item in content:
        if type(item) is not dict or item.keys() != {"type", "text"} or item["type"] != "text":
            return None
        if type(item["text"]) is not str:
            return None
        texts.append({"text": item["text"], "type": "text"})
    wire = {"content": texts, "isError": result["isError"]}
    if "structuredContent" in result:
        wire["structuredContent"] = result["structuredContent"]
    return wire
