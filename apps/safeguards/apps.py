from django.apps import AppConfig


class SafeguardsConfig(AppConfig):
    name = "apps.safeguards"
    label = "safeguards"
    verbose_name = "What the user decides for each app"
