from django.apps import AppConfig


class CredentialsConfig(AppConfig):
    name = "apps.credentials"
    label = "credentials"
    verbose_name = "Credentials"

    def ready(self):
        from . import checks, receivers  # noqa: F401  registers the system checks

        receivers.connect()
