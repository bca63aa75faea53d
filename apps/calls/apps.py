from django.apps import AppConfig


class CallsConfig(AppConfig):
    name = "apps.calls"
    label = "calls"
