from django.apps import AppConfig


class ApiV1Config(AppConfig):
    name = "apps.api_v1"
    label = "api_v1"
    verbose_name = "API v1"

    def ready(self):
        from . import checks, openapi  # noqa: F401  registers the system checks and the schema extensions
