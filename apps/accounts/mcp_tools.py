"""svc_whoami (docs/spec.md 4.7): which account the connection acts for."""

from apps.core.text import one_line
from apps.mcp_bridge.public import ToolSpec, register


def whoami(*, principal, arguments) -> dict:
    user = principal.user
    name = one_line(user.display_name or "")
    email = user.email
    spoken = f"You are connected as {name} ({email})." if name else f"You are connected as {email}."
    return {"email": email, "display_name": user.display_name, "spoken": spoken}


svc_whoami = register(
    ToolSpec(
        name="svc_whoami",
        title="Who am I",
        description=(
            "Shows which personal account this connection acts for: the account's display name and email. "
            "Use it to confirm the account before anything else."
        ),
        handler=whoami,
        output_schema={
            "type": "object",
            "properties": {
                "email": {"type": "string", "description": "The account's email address."},
                "display_name": {"type": "string", "description": "The account's display name."},
                "spoken": {
                    "type": "string",
                    "description": "One sentence saying who the user is connected as, for reading aloud.",
                },
            },
            "required": ["email", "display_name", "spoken"],
            "additionalProperties": False,
        },
    )
)
