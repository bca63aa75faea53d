from django.apps import AppConfig


class ApiV1Config(AppConfig):
    name = "apps.api_v1"
    label = "api_v1"
    verbose_name = "API v1"

    def ready(self):
        from . import credential_cache, openapi  # noqa: F401  openapi registers the schema extensions

        credential_cache.connect_signals()
