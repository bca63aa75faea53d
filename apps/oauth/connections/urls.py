"""Routes of connected apps; included from config/urls.py. No trailing slashes.

``client_id`` may be a client metadata document URL, so the route takes a path
(callers percent-encode it; Django decodes before routing).
"""

from django.urls import path

from . import views

urlpatterns = [
    path("api/oauth/connections", views.ConnectionListApi.as_view(), name="oauth-connections"),
    path("api/oauth/connections/<path:client_id>", views.ConnectionApi.as_view(), name="oauth-connection"),
]
