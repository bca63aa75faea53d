from django.apps import AppConfig
from django.utils.module_loading import autodiscover_modules


class JobsConfig(AppConfig):
    name = "apps.jobs"
    label = "jobs"
    verbose_name = "Durable work"

    def ready(self):
        # Handlers live beside the data they change, in each app's jobs.py, and register
        # themselves; this app imports no app that uses it.
        autodiscover_modules("jobs")
