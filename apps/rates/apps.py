from django.apps import AppConfig


class RatesConfig(AppConfig):
    name = "apps.rates"
    label = "rates"
