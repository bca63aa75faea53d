from django.apps import AppConfig


class OAuthConfig(AppConfig):
    name = "apps.oauth"
    label = "oauth"
    verbose_name = "OAuth"

    def ready(self):
        from apps.api_v1.credentials import register_resolver

        from .tokens import resolve_access_token

        register_resolver("sat_", resolve_access_token)
