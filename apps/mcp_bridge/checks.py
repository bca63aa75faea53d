"""System checks of the tool registry (run by ``manage.py check`` and at test start).

Tools register themselves when their app's mcp_tools.py is imported; these checks read the
registry once every app is ready, so a tool that no token could call, or that tells an
assistant too little to call it well, is refused at start-up rather than found in use.
"""

from django.core.checks import Error, register

from apps.credentials.scopes import is_known

from .registry import TOOLS


@register()
def check_tools(app_configs, **kwargs):
    return tool_errors(TOOLS.values())


def tool_errors(specs) -> list[Error]:
    errors = []
    for spec in specs:
        if spec.scope is not None and not is_known(spec.scope):
            errors.append(
                Error(
                    f"MCP tool {spec.name} requires the scope {spec.scope!r}, which the scope table does not have",
                    hint="Use a scope of apps/credentials/scopes.py, or add the new scope there (docs/spec.md 2.3).",
                    id="mcp_bridge.E001",
                )
            )
        schema = spec.output_schema
        if not (schema.get("type") == "object" and schema.get("properties") and "required" in schema):
            errors.append(
                Error(
                    f"MCP tool {spec.name} has no output schema of an object with its properties and required fields",
                    hint="Describe the structured result: type object, properties, required (docs/spec.md 7.4).",
                    id="mcp_bridge.E002",
                )
            )
        hints = (spec.read_only, spec.idempotent, spec.destructive, spec.open_world)
        if not (spec.title.strip() and spec.description.strip() and all(isinstance(h, bool) for h in hints)):
            errors.append(
                Error(
                    f"MCP tool {spec.name} lacks a title, a description or one of its annotations",
                    hint="Give it a title, a description and true or false for each hint (read-only, idempotent, "
                    "destructive, open world).",
                    id="mcp_bridge.E003",
                )
            )
    return errors
