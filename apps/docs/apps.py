from django.apps import AppConfig


class DocsConfig(AppConfig):
    name = "apps.docs"
    label = "docs"
    verbose_name = "Documentation"
