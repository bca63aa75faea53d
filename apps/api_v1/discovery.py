"""Which apps mount on /v1, found as MCP tools are: by the modules an app has, never by a list.

An installed app with an ``apis.py`` serves /v1, and its ``urls.py`` holds those routes,
relative to /v1/. Other apps keep their pages in ``urls.py`` too (``oauth``, ``docs``),
which is why the mark is ``apis.py`` and not ``urls.py`` alone.
"""

from importlib import import_module

from django.apps import AppConfig, apps
from django.utils.module_loading import module_has_submodule


def v1_apps() -> list[AppConfig]:
    """The installed apps that serve /v1, in ``INSTALLED_APPS`` order (the routes' order)."""
    return [
        config
        for config in apps.get_app_configs()
        if module_has_submodule(config.module, "apis") and module_has_submodule(config.module, "urls")
    ]


def v1_routes() -> list:
    """Every /v1 app's ``urls.urlpatterns``, side by side."""
    return [route for config in v1_apps() for route in import_module(f"{config.name}.urls").urlpatterns]
