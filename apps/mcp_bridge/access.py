"""Who may call /mcp: an OAuth access token bound to ``{BASE_URL}/mcp``, and nothing else (SPEC 4.7, 5.8).

Every refusal is the 401 ``invalid_token`` envelope whose ``WWW-Authenticate``
points at the MCP protected-resource metadata, because that header is what
starts an MCP client's OAuth flow.
"""

from django.conf import settings

from apps.api_v1.credentials import (
    MISSING_MESSAGE,
    bearer_from_header,
    invalid_token,
    resolve_bearer,
)
from apps.api_v1.principal import Principal
from apps.apikeys.models import LIVE_PREFIX, TEST_PREFIX
from apps.core.errors import ApiError
from apps.ratelimit import budgets
from apps.ratelimit.services import ratelimit_bearer_failure

RESOURCE_PATH = "mcp"
API_KEY_MESSAGE = (
    "API keys work only with the REST API under /v1. Connect to MCP through OAuth: "
    "add this server in your assistant and sign in when asked."
)
WRONG_RESOURCE_MESSAGE = "This access token was not issued for MCP. Connect the app to MCP again."
TEST_MODE_MESSAGE = "Test-mode credentials are not accepted by MCP."


def mcp_resource() -> str:
    return f"{settings.BASE_URL}/{RESOURCE_PATH}"


def principal_for_request(request) -> Principal:
    secret = bearer_from_header(request)
    if secret is None:
        raise invalid_token(RESOURCE_PATH, MISSING_MESSAGE)
    if not secret:
        raise invalid_token(RESOURCE_PATH)
    if secret.startswith((LIVE_PREFIX, TEST_PREFIX)):
        # Refused by prefix, before any lookup: /mcp is never an oracle for
        # API keys, and a key's last-used stamp never moves for a refused call.
        # Still a credential that is no good here, so it spends the failed-bearer budget.
        raise refused(request, API_KEY_MESSAGE)
    # Every /mcp request counts against the reads budget (SPEC 8.1), applied with the lookup.
    principal = resolve_bearer(request, secret, resource_path=RESOURCE_PATH, budget_class=budgets.READS)
    # The resolver is asked for "mcp" already; this holds even if a resolver forgets.
    if principal.kind != "oauth":
        raise refused(request, API_KEY_MESSAGE)
    if not principal.livemode:
        raise refused(request, TEST_MODE_MESSAGE)
    if principal.resource != mcp_resource():
        raise refused(request, WRONG_RESOURCE_MESSAGE)
    return principal


def refused(request, message: str) -> ApiError:
    """The 401 for a credential that is not usable at /mcp, or 429 once the source has failed 60 a minute."""
    return ratelimit_bearer_failure(request=request, error=invalid_token(RESOURCE_PATH, message))


def require_scope(principal: Principal, scope: str | None) -> None:
    """Step-up signal of SPEC 5.9 for a tool whose scope the token lacks."""
    if scope is None or scope in principal.scopes:
        return
    raise ApiError(
        "insufficient_scope",
        f"This tool needs the {scope} permission, which this connection was not given. Reconnect the app and allow it.",
        headers={
            "WWW-Authenticate": (
                f'Bearer error="insufficient_scope", scope="{scope}", '
                f'resource_metadata="{settings.BASE_URL}/.well-known/oauth-protected-resource/{RESOURCE_PATH}"'
            )
        },
    )
