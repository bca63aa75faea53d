from django.apps import AppConfig


class ApiKeysConfig(AppConfig):
    name = "apps.apikeys"
    label = "apikeys"
    verbose_name = "API keys"
