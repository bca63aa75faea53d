"""The /v1 URL list: the framework's own routes, each /v1 app's urls.py, the catch-all last.

The apps are found, not listed (``discovery.v1_apps``): an app with ``apis.py`` joins /v1
by being in ``INSTALLED_APPS``; its urls.py is relative to /v1/ (no trailing slashes).
"""

from django.urls import include, path, re_path

from . import views
from .discovery import v1_routes

# One include under "v1/" holding every app's routes side by side: Django resolves a path one
# include level at a time, and an include per app cost a GET /v1/me two more levels (about
# 10 us) and made every other path (/mcp, /oauth/token) try each app's prefix in turn.
V1_ROUTES = [path("openapi.json", views.OpenApiView.as_view(), name="v1-openapi"), *v1_routes()]

# Everything else under /v1 is route_not_found, never a redirect; last in every URL list.
CATCH_ALL = [re_path(r"^v1(?:/.*)?$", views.route_not_found)]

urlpatterns = [path("v1/", include(V1_ROUTES)), *CATCH_ALL]
