from django.apps import AppConfig


class NumbersConfig(AppConfig):
    name = "apps.numbers"
    label = "numbers"
