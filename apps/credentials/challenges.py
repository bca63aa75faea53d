"""The 401 and 403 answers of a bearer resource and their ``WWW-Authenticate`` challenges (docs/spec.md 5.9).

Both challenges name the protected-resource metadata of the resource that
refused, because that header is what starts a client's OAuth flow (RFC 9728
5.1). Values are quoted as RFC 6750 3 requires.
"""

from django.conf import settings

from apps.core.errors import ApiError

INVALID_MESSAGE = "The access token is invalid, expired or revoked."
MISSING_MESSAGE = "No access token was sent. Send it in the header Authorization: Bearer <token>."


def resource_metadata_url(resource_path: str) -> str:
    return f"{settings.BASE_URL}/.well-known/oauth-protected-resource/{resource_path}"


def www_authenticate(resource_path: str, *, error: str = "invalid_token", scope: str | None = None) -> str:
    parts = [f'error="{error}"']
    if scope is not None:
        parts.append(f'scope="{scope}"')
    parts.append(f'resource_metadata="{resource_metadata_url(resource_path)}"')
    return "Bearer " + ", ".join(parts)


RESOURCE_NAMES = {"v1": "the REST API", "mcp": "MCP"}


def wrong_resource_message(resource_path: str) -> str:
    name = RESOURCE_NAMES.get(resource_path, resource_path)
    return f"This access token was not issued for {name}. Connect the app to {name} again."


def invalid_token(resource_path: str, message: str = INVALID_MESSAGE) -> ApiError:
    return ApiError("invalid_token", message, headers={"WWW-Authenticate": www_authenticate(resource_path)})


class KnownRevokedToken(ApiError):
    """A token we issued and the user revoked (disconnect, password change).

    Still a 401 ``invalid_token``, with a message asking to reconnect; not a
    guess, so it spends no failed-bearer budget (docs/spec.md 8.3).
    """

    def __init__(self, resource_path: str, message: str):
        super().__init__("invalid_token", message, headers={"WWW-Authenticate": www_authenticate(resource_path)})


def missing_scope_message(scope: str, principal=None, *, what: str = "This operation") -> str:
    """The refusal's sentence, with the way to a credential that holds ``scope``: credentials never
    gain scopes (docs/spec.md 2.3), so an API key is replaced by a new one and an app reconnects."""
    kind = getattr(principal, "kind", None)
    if kind == "api_key":
        return (
            f"{what} needs the {scope} scope, which this API key was not given. A key keeps the scopes it was "
            f"created with: create a key with {scope} at {settings.APP_URL}/settings/api-keys and use it instead."
        )
    if kind == "oauth":
        return (
            f"{what} needs the {scope} scope, which this connection was not given. Connect the app again and "
            f"allow {scope} when asked."
        )
    return f"{what} needs the {scope} scope, which this credential was not given."


def insufficient_scope(
    resource_path: str,
    scope: str,
    message: str | None = None,
    *,
    principal=None,
    param: str | None = None,
    what: str = "This operation",
) -> ApiError:
    return ApiError(
        "insufficient_scope",
        message or missing_scope_message(scope, principal, what=what),
        param=param,
        headers={"WWW-Authenticate": www_authenticate(resource_path, error="insufficient_scope", scope=scope)},
    )
