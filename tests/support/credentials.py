"""Credentials as a steady client presents them: cached in the shared Redis store."""

from django.test import Client

from tests.support.factories import make_api_key


def cached_key_secret(user, scopes: list[str]) -> str:
    """A new API key's secret, presented until the credential cache holds it: a user's first
    lookup only creates the user's revocation epoch, the second caches the credential."""
    _key, secret = make_api_key(user, scopes=scopes)
    for _ in range(2):
        assert Client().get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200
    return secret
