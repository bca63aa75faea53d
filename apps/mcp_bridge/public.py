"""What other apps may use of /mcp (the only module they import; .importlinter).

An app's ``mcp_tools.py`` registers its tools (discovered at start-up, as /v1 routes are)::

    from apps.mcp_bridge.public import ToolFailure, ToolSpec, register

    register(ToolSpec(name="svc_list_faxes", title=..., description=..., handler=list_faxes,
                      scope="faxes:read", output_schema={...}))

A list in an output schema is ``list_of(properties, most=N)``.

A handler raises ``ToolFailure`` for a refusal the assistant should read (``failure_for`` turns an
``ApiError`` into one, carrying what the user must do outside the assistant). ``TOOLS`` (the
registry, by name) and the server's name, version and instructions are for the pages
that document the tools. The JSON-RPC view, the access checks and the plain call path
stay inside.
"""

from .protocol import INSTRUCTIONS, SERVER_NAME, SERVER_VERSION
from .registry import TOOLS, ToolFailure, ToolSpec, failure_for, register
from .schemas import list_of

__all__ = [
    "INSTRUCTIONS",
    "SERVER_NAME",
    "SERVER_VERSION",
    "TOOLS",
    "ToolFailure",
    "ToolSpec",
    "failure_for",
    "list_of",
    "register",
]
