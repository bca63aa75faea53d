"""Who may call /mcp: an OAuth access token bound to ``{BASE_URL}/mcp``, and nothing else (docs/spec.md 4.7, 5.8).

Every refusal is the 401 ``invalid_token`` envelope whose ``WWW-Authenticate``
points at the MCP protected-resource metadata, because that header is what
starts an MCP client's OAuth flow.
"""

from apps.core.errors import ApiError
from apps.credentials.challenges import MISSING_MESSAGE, invalid_token
from apps.credentials.header import bearer_from_header, malformed_header_message
from apps.credentials.principal import Principal
from apps.credentials.resolvers import resolve_bearer, resolver_for
from apps.credentials.scopes import require
from apps.ratelimit.public import budgets, ratelimit_bearer_failure

RESOURCE_PATH = "mcp"
API_KEY_MESSAGE = (
    "API keys work only with the REST API under /v1. Connect to MCP through OAuth: "
    "add this server in your assistant and sign in when asked."
)
TEST_MODE_MESSAGE = "Test-mode credentials are not accepted by MCP."


def principal_for_request(request) -> Principal:
    secret = bearer_from_header(request)
    if secret is None:
        raise invalid_token(RESOURCE_PATH, MISSING_MESSAGE)
    if not secret:
        raise invalid_token(RESOURCE_PATH, malformed_header_message(request))
    found = resolver_for(secret)
    if found is not None and RESOURCE_PATH not in found.resources:
        # A kind of credential that never serves /mcp (API keys), refused by prefix before any
        # lookup: /mcp is never an oracle for them, and their last-use stamp never moves here.
        # Still a credential that is no good here, so it spends the failed-bearer budget.
        raise refused(request, API_KEY_MESSAGE)
    # Every /mcp request counts against the reads budget (docs/spec.md 8.1), applied with the lookup.
    principal = resolve_bearer(request, secret, resource_path=RESOURCE_PATH, budget_class=budgets.READS)
    if not principal.livemode:
        raise refused(request, TEST_MODE_MESSAGE)
    return principal


def refused(request, message: str) -> ApiError:
    """The 401 for a credential that is not usable at /mcp, or 429 once the source has failed 60 a minute."""
    return ratelimit_bearer_failure(request=request, error=invalid_token(RESOURCE_PATH, message))


def require_scope(principal: Principal, scope: str | None) -> None:
    """Step-up signal of docs/spec.md 5.9 for a tool whose scope the token lacks."""
    require(
        principal,
        scope,
        resource_path=RESOURCE_PATH,
        message=(
            f"This tool needs the {scope} permission, which this connection was not given. "
            "Reconnect the app and allow it."
        ),
    )
