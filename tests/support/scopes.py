"""The scope matrix's shared pieces (docs/spec.md 2.3, 5.9): the challenge a missing scope answers with."""

from apps.credentials.scopes import ALL_SCOPES


def challenge(scope: str, resource_path: str) -> str:
    """``WWW-Authenticate`` of a 403 ``insufficient_scope`` on /v1 or /mcp, quoted as RFC 6750 3 requires."""
    return (
        f'Bearer error="insufficient_scope", scope="{scope}", '
        f'resource_metadata="http://testserver/.well-known/oauth-protected-resource/{resource_path}"'
    )


def every_other_scope(scope: str) -> list[str]:
    return [s for s in ALL_SCOPES if s != scope]
