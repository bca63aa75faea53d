from django.apps import AppConfig


class TelephonyConfig(AppConfig):
    name = "apps.telephony"
    label = "telephony"
    verbose_name = "Telephony (the carrier boundary)"
