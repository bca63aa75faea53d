from django.apps import AppConfig


class OAuthConfig(AppConfig):
    """django-oauth-toolkit extended. Its extension points are named by dotted paths in
    settings.OAUTH2_PROVIDER (validator, server, token generators, scopes backend,
    admin, client-metadata fetcher), and the access-token resolver of /v1 and /mcp in
    settings.BEARER_RESOLVERS, so an import graph shows them as unused: they are not."""

    name = "apps.oauth"
    label = "oauth"
    verbose_name = "OAuth"
