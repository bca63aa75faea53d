"""Bearer resolution of ``sat_`` access tokens for /v1 and /mcp (filled in below)."""


def resolve_access_token(request, secret, *, resource_path):
    from apps.api_v1.credentials import invalid_token

    raise invalid_token(resource_path)
