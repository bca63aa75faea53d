"""Reads behind the documentation pages: every row comes from the table the code itself runs on.

Error codes from ``apps.core.errors.REGISTRY``, scopes from the scope table, tools
from the MCP registry, budgets from ``apps.ratelimit.budgets``, lifetimes and caps
from the modules that enforce them. A page built from these cannot promise what
the service does not do.

The rows of each page are in the module of their kind: ``facts`` (the numbers the prose names),
``guidance`` (errors), ``tools`` (scopes and tools), ``limits`` (budgets and lockouts) and
``pages`` (the rest).
"""

from .facts import facts
from .guidance import error_rows, oauth_error_rows, sample_error_body, type_rows
from .limits import COUNTED_PER, SAME, oauth_lockouts, request_limits
from .pages import (
    authorization_server,
    contact_unset_on_local_address,
    protected_resources,
    security_contact,
    simulator_facts,
    version_rows,
    webhook_facts,
)
from .tools import mcp_server, scope_rows, starter_scopes, tool_rows

__all__ = [
    "COUNTED_PER",
    "SAME",
    "authorization_server",
    "contact_unset_on_local_address",
    "error_rows",
    "facts",
    "mcp_server",
    "oauth_error_rows",
    "oauth_lockouts",
    "protected_resources",
    "request_limits",
    "sample_error_body",
    "scope_rows",
    "security_contact",
    "simulator_facts",
    "starter_scopes",
    "tool_rows",
    "type_rows",
    "version_rows",
    "webhook_facts",
]
