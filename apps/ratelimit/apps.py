from django.apps import AppConfig


class RatelimitConfig(AppConfig):
    name = "apps.ratelimit"
    label = "ratelimit"
    verbose_name = "Rate limiting"

    def ready(self):
        # Registers the system checks and connects setting_changed.
        from . import checks, conf  # noqa: F401
