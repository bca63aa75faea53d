from django.apps import AppConfig


class TelephonyConfig(AppConfig):
    name = "apps.telephony"
    label = "telephony"
    verbose_name = "Telephony (the carrier boundary)"

    def ready(self):
        from . import checks  # noqa: F401  registers the carrier's system checks
