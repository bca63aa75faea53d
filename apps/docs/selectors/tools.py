"""The scopes and the MCP tools, as the OAuth and MCP pages list them."""

from dataclasses import dataclass

from apps.credentials.scopes import READ_ONLY_STARTER_SET, SCOPES
from apps.mcp_bridge.public import INSTRUCTIONS, SERVER_NAME, SERVER_VERSION, TOOLS


def scope_anchor(name: str) -> str:
    return "scope-" + name.replace(":", "-")


@dataclass(frozen=True)
class ScopeRow:
    name: str
    sentence: str
    sensitive: bool
    starter: bool

    @property
    def anchor(self) -> str:
        return scope_anchor(self.name)


def scope_rows() -> list[ScopeRow]:
    return [ScopeRow(s.name, s.sentence, s.sensitive, s.name in READ_ONLY_STARTER_SET) for s in SCOPES.values()]


def starter_scopes() -> str:
    return " ".join(READ_ONLY_STARTER_SET)


@dataclass(frozen=True)
class Field:
    name: str
    type: str
    required: bool
    description: str


@dataclass(frozen=True)
class ToolRow:
    name: str
    title: str
    description: str
    scope: str | None
    scope_sentence: str
    read_only: bool
    idempotent: bool
    destructive: bool
    open_world: bool
    inputs: list[Field]
    outputs: list[Field]

    @property
    def scope_anchor(self) -> str:
        return scope_anchor(self.scope) if self.scope else ""


def _type_of(schema: dict) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {_type_of(schema['items'])}"
    if "const" in schema:
        return f"always {schema['const']}"
    if "enum" in schema:
        return " | ".join(str(v) for v in schema["enum"])
    return kind or "any"


def _fields(schema: dict) -> list[Field]:
    required = set(schema.get("required", ()))
    details = []
    for name, prop in (schema.get("properties") or {}).items():
        limits = [
            template.format(prop[key])
            for key, template in (
                ("minimum", "at least {}"),
                ("maximum", "at most {}"),
                ("minLength", "at least {} characters"),
                ("maxLength", "at most {} characters"),
            )
            if key in prop
        ]
        if "default" in prop:
            limits.append(f"default {prop['default']}")
        description = prop.get("description", "")
        if limits:
            description = f"{description} ({', '.join(limits)})".strip()
        details.append(Field(name, _type_of(prop), name in required, description))
    return details


def tool_rows() -> list[ToolRow]:
    """The live tools, as ``tools/list`` gives them, with the scope each needs."""
    rows = []
    for spec in sorted(TOOLS.values(), key=lambda s: s.name):
        scope = SCOPES.get(spec.scope) if spec.scope else None
        rows.append(
            ToolRow(
                name=spec.name,
                title=spec.title,
                description=spec.description,
                scope=spec.scope,
                scope_sentence=scope.sentence if scope else "",
                read_only=spec.read_only,
                idempotent=spec.idempotent,
                destructive=spec.destructive,
                open_world=spec.open_world,
                inputs=_fields(spec.input_schema),
                outputs=_fields(spec.output_schema),
            )
        )
    return rows


def mcp_server() -> dict:
    return {"name": SERVER_NAME, "version": SERVER_VERSION, "instructions": INSTRUCTIONS}
