from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "apps.webhooks"
    label = "webhooks"

    def ready(self):
        from . import checks, receivers  # noqa: F401  (checks registers the system checks)

        receivers.connect()
