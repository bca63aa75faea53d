"""Every /v1 resource route, found from the URL list, with the examples its own app's tests give.

A resource route is a URL pattern whose view is a ``ResourceApi`` (bearer credentials, a
``required_scope``). The tests that walk every route (tests/api_v1/test_resource_routes.py,
test_fast_path.py) take their data from the route's app, in ``tests/<app label>/routes.py``:

- ``examples(user) -> list[str]``: requests of each of the app's routes over rows written for
  ``user``, good and bad (ids that exist and do not, cursors, parameters);
- ``MAX_STATEMENTS``: the most SQL statements one answer may cost on a cached credential.

A new resource app writes that one file beside its tests and is held to every route contract.
"""

from dataclasses import dataclass
from importlib import import_module
from types import ModuleType

from django.apps import apps
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from apps.api_v1.bases import ResourceApi


@dataclass(frozen=True)
class Route:
    route: str  # as written in the URL list: "/v1/numbers/<str:number_id>"
    callback: object
    view_class: type

    @property
    def scope(self) -> str | None:
        return self.view_class.required_scope

    @property
    def app_label(self) -> str:
        return apps.get_containing_app_config(self.view_class.__module__).label

    @property
    def openapi_path(self) -> str:
        """The route as the OpenAPI document writes it: /v1/numbers/{number_id}."""
        parts = []
        for part in self.route.split("/"):
            parts.append("{" + part[1:-1].split(":")[-1] + "}" if part.startswith("<") else part)
        return "/".join(parts)

    def asked_by(self, path: str) -> bool:
        return resolve(path.split("?")[0]).func is self.callback


def resource_routes() -> list[Route]:
    """Every ``ResourceApi`` route of the URL list, in its order."""
    found = []

    def walk(patterns, prefix):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                view_class = getattr(entry.callback, "view_class", None)
                if view_class is not None and issubclass(view_class, ResourceApi):
                    found.append(Route(prefix + str(entry.pattern), entry.callback, view_class))

    walk(get_resolver().url_patterns, "/")
    return found


def app_examples(label: str) -> ModuleType:
    """``tests/<app folder>/routes.py``: the app's examples of its own routes (the folder mirrors
    ``apps/<app folder>``, whose label may differ: apps.messages is labelled inbox)."""
    folder = apps.get_app_config(label).name.rsplit(".", 1)[-1]
    try:
        return import_module(f"tests.{folder}.routes")
    except ModuleNotFoundError as missing:
        raise AssertionError(
            f"the app {label!r} serves /v1 resource routes but tests/{label}/routes.py, its examples for the "
            "route-walking tests, is missing (see tests/support/routes.py)"
        ) from missing


def examples(user) -> dict[str, list[str]]:
    """Every resource app's examples over rows written for ``user``, by app label."""
    labels = dict.fromkeys(route.app_label for route in resource_routes())
    return {label: app_examples(label).examples(user) for label in labels}


def every_example(user) -> list[str]:
    return [path for paths in examples(user).values() for path in paths]
