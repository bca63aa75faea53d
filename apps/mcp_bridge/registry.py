"""The one table of MCP tools, and how a call is run against it.

A tool is data (name, title, schemas, annotations, scope) plus a handler
``fn(principal, arguments) -> dict``. The handler returns the structured
content; this module adds the text copy and the envelope. Business failures
are raised as ``ToolFailure`` with a sentence the assistant can act on and
become ``isError`` results (docs/spec.md 7.4); they are never JSON-RPC errors.
"""

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from django.db import InterfaceError, OperationalError
from jsonschema.validators import validator_for

from apps.core.errors import ApiError
from apps.core.inputs import find_in_json

from .schema_precheck import Check, compile_precheck

logger = logging.getLogger(__name__)

PREFIX = "svc_"
# A tool that spends a budget of its own (message reads) is refused with the HTTP answer: 429, or 503
# when the limiter cannot say.
HTTP_LEVEL_STATUSES = frozenset({429, 503})
UNAVAILABLE = "The service is temporarily unavailable. Try again in a minute."


class ToolFailure(Exception):
    """A failure the user can do something about; ``message`` says what."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class UserActionRequired(ToolFailure):
    """A refusal only the user can lift, on a page of the service (``url``): the tool gets no answer
    from the model. A client that takes URL-mode elicitation is sent there as its protocol version
    says (apps/mcp_bridge/protocol.py); any other gets the link in an ``isError`` result."""

    def __init__(self, message: str, *, url: str):
        super().__init__(message)
        self.url = url

    def link_text(self) -> str:
        return (
            f"{self.message}\n\nspoken: I need your yes on the service's own page first. Open {self.url} , "
            "check the details and press Confirm, then ask me again."
        )


def failure_for(error: ApiError) -> ToolFailure:
    """The tool failure of a service's refusal: one that carries a page for the user (``confirm_url``,
    not yet decided) is a ``UserActionRequired``, any other a plain sentence."""
    url = error.extra.get("confirm_url")
    if url and "decision" not in error.extra:
        return UserActionRequired(error.message, url=url)
    return ToolFailure(error.message)


class InvalidArguments(Exception):
    """Arguments that do not match the tool's input schema (JSON-RPC -32602)."""


class UnknownTool(Exception):
    """No tool of that name (JSON-RPC -32602)."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    handler: Callable[..., dict]
    output_schema: dict
    input_schema: dict = field(
        default_factory=lambda: {"type": "object", "properties": {}, "additionalProperties": False}
    )
    read_only: bool = True
    idempotent: bool = True
    destructive: bool = False
    open_world: bool = False
    # None: any scope will do (svc_whoami). Otherwise the scope a token must hold.
    scope: str | None = None
    # A budget class (apps/ratelimit/budgets.py) a call spends besides the reads budget of every
    # /mcp request, as its REST twin does (docs/spec.md 8.1: svc_quote_call is a quote).
    budget: str | None = None

    def __post_init__(self):
        if not self.name.startswith(PREFIX):
            raise ValueError(f"MCP tool names start with {PREFIX!r}: {self.name!r}")
        for schema in (self.input_schema, self.output_schema):
            validator_for(schema).check_schema(schema)

    def as_tool(self) -> types.Tool:
        return types.Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=self.input_schema,
            output_schema=self.output_schema,
            annotations=types.ToolAnnotations(
                title=self.title,
                read_only_hint=self.read_only,
                destructive_hint=self.destructive,
                idempotent_hint=self.idempotent,
                open_world_hint=self.open_world,
            ),
        )


TOOLS: dict[str, ToolSpec] = {}


def register(spec: ToolSpec) -> ToolSpec:
    if spec.name in TOOLS:
        raise ValueError(f"tool {spec.name!r} registered twice")
    TOOLS[spec.name] = spec
    return spec


def tool_get(name: str) -> ToolSpec:
    try:
        return TOOLS[name]
    except KeyError:
        raise UnknownTool(f"Unknown tool: {name}. Call tools/list to see the available tools.") from None


def tools_list() -> list[types.Tool]:
    return [spec.as_tool() for spec in sorted(TOOLS.values(), key=lambda s: s.name)]


_validators: dict[int, tuple[dict, Any, Check | None]] = {}


def _compiled(schema: dict) -> tuple[dict, Any, Check | None]:
    # Compiled once per schema object (a tool's schemas live as long as the process);
    # compiling, or even serialising the schema to key a cache, costs more than validating.
    known = _validators.get(id(schema))
    if known is None or known[0] is not schema:
        known = _validators[id(schema)] = (schema, validator_for(schema)(schema), compile_precheck(schema))
    return known


def schema_errors(schema: dict, instance: Any) -> list:
    _, validator, precheck = _compiled(schema)
    if precheck is not None and precheck(instance):
        # The compiled check passes only what jsonschema would pass; its walk costs ten times more.
        return []
    # Ordered by message, never by str(error): that pretty-prints the whole instance, which
    # for arguments nested hundreds deep is a recursion of its own.
    return sorted(validator.iter_errors(instance), key=_error_order)


def _error_order(error) -> tuple:
    return error.message, [str(part) for part in error.absolute_path], str(error.validator)


# No tool's schema reaches past a few levels; deeper arguments are refused before any walk
# that recurses (the schema validator, the messages it writes) sees them.
MAX_ARGUMENT_DEPTH = 32


def _nested_deeper_than(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            inner = item.values()
        elif isinstance(item, list):
            inner = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in inner)
    return False


def checked_arguments(spec: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments a tool's handler gets: checked against its input schema, and a whole number
    a client wrote as ``5.0`` (an integer to JSON Schema, so valid) given as the int 5."""
    found = find_in_json(arguments) if arguments else None
    if found is not None:
        # The input guard of every other surface: no control character or lone surrogate
        # reaches a tool's query (PostgreSQL refuses NUL in text).
        where = found.param or "arguments"
        raise InvalidArguments(f"Invalid arguments for {spec.name} at {where}: control characters are not allowed")
    if _nested_deeper_than(arguments, MAX_ARGUMENT_DEPTH):
        raise InvalidArguments(f"Invalid arguments for {spec.name}: nested more than {MAX_ARGUMENT_DEPTH} levels deep")
    errors = schema_errors(spec.input_schema, arguments)
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "arguments"
        # The validator's sentence may quote the caller's own value; keep it short.
        raise InvalidArguments(f"Invalid arguments for {spec.name} at {where}: {first.message[:200]}")
    properties = spec.input_schema.get("properties", {})
    return {
        name: int(value) if isinstance(value, float) and _declares_integer(properties.get(name)) else value
        for name, value in arguments.items()
    }


def _declares_integer(schema: dict | None) -> bool:
    declared = (schema or {}).get("type")
    return declared == "integer" or (isinstance(declared, list) and "integer" in declared)


def tool_call(*, principal, spec: ToolSpec, arguments: dict[str, Any]) -> dict:
    """Run ``spec`` for ``principal``; arguments come from ``checked_arguments``.

    Returns the ``CallToolResult`` as its by-alias JSON dump, which ``protocol.shape`` gives
    the SDK's serialiser for the negotiated version. A ``UserActionRequired`` is raised on: how
    the user is sent to the page depends on the protocol version and the client (protocol.py).
    """
    try:
        structured = spec.handler(principal=principal, arguments=arguments)
    except UserActionRequired:
        raise
    except ToolFailure as failure:
        return failure_result(failure.message)
    except ApiError as error:
        if error.entry.status in HTTP_LEVEL_STATUSES:
            raise  # a budget a tool spends is refused at the HTTP level (docs/spec.md 7.4), as on /v1
        logger.exception("MCP tool %s failed", spec.name)
        return failure_result(UNAVAILABLE)
    except (OperationalError, InterfaceError):
        raise  # the database unreachable or a statement past its bound: the view answers 503
    except Exception:
        # Whatever broke stays in the log; the assistant gets a sentence it can relay.
        logger.exception("MCP tool %s failed", spec.name)
        return failure_result(UNAVAILABLE)
    if schema_errors(spec.output_schema, structured):
        # A result that breaks its own outputSchema would be rejected by the client anyway.
        logger.error("MCP tool %s returned content that does not match its outputSchema", spec.name)
        return failure_result(UNAVAILABLE)
    return structured_result(structured)


# What CallToolResult(...).model_dump(by_alias=True, mode="json", exclude_none=True) gives, written out:
# the SDK's serialiser validates and dumps the result again for the version, so building the
# model first only walked the content twice more for the same dict.
def structured_result(structured: dict) -> dict:
    text = json.dumps(structured, ensure_ascii=False)
    if type(structured) is not dict or not all(isinstance(key, str) for key in structured):
        # The model's dump turns such keys into strings; the serialiser alone would refuse them.
        content = [types.TextContent(text=text)]
        model = types.CallToolResult(content=content, structured_content=structured)
        return model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
        "isError": False,
        "resultType": "complete",
    }


def failure_result(message: str) -> dict:
    return {"content": [{"type": "text", "text": message}], "isError": True, "resultType": "complete"}
