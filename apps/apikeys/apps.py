from django.apps import AppConfig


class ApiKeysConfig(AppConfig):
    name = "apps.apikeys"
    label = "apikeys"
    verbose_name = "API keys"

    def ready(self):
        from . import openapi  # noqa: F401  registers the session scheme for the schema
