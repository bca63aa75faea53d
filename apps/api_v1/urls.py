"""The /v1 URL list: the framework's own routes, each resource app's urls.py, the catch-all last.

A resource app joins /v1 with one line in RESOURCE_APPS; its urls.py is
relative to /v1/ (no trailing slashes).
"""

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
)

urlpatterns = [
    path("v1/openapi.json", views.OpenApiView.as_view(), name="v1-openapi"),
    *(path("v1/", include(f"{app}.urls")) for app in RESOURCE_APPS),
    # Last: everything else under /v1 is route_not_found, never a redirect.
    *(catch_all := [re_path(r"^v1(?:/.*)?$", views.route_not_found)]),
]
