"""The /v1 URL list: the framework's own routes, each resource app's urls.py, the catch-all last.

A resource app joins /v1 with one line in RESOURCE_APPS; its urls.py is
relative to /v1/ (no trailing slashes).
"""

from importlib import import_module

from django.urls import include, path, re_path

from . import views

RESOURCE_APPS = (
    "apps.accounts",
    "apps.apikeys",
    "apps.rates",
    "apps.billing",
    "apps.calls",
    "apps.contacts",
    "apps.numbers",
    "apps.webhooks",
)

# One include under "v1/" holding every app's routes side by side: Django resolves a path one
# include level at a time, and an include per app cost a GET /v1/me two more levels (about
# 10 us) and made every other path (/mcp, /oauth/token) try each app's prefix in turn.
V1_ROUTES = [
    path("openapi.json", views.OpenApiView.as_view(), name="v1-openapi"),
    *(route for app in RESOURCE_APPS for route in import_module(f"{app}.urls").urlpatterns),
]

urlpatterns = [
    path("v1/", include(V1_ROUTES)),
    # Last: everything else under /v1 is route_not_found, never a redirect.
    *(catch_all := [re_path(r"^v1(?:/.*)?$", views.route_not_found)]),
]
