"""Routes of the API keys app: the /v1 endpoints and the dashboard screen.

Included from config/urls.py before the /v1 catch-all; no trailing slashes.
"""

from django.urls import path

from . import apis, views

urlpatterns = [
    path("v1/api-keys", apis.ApiKeyListCreateApi.as_view(), name="v1-api-keys"),
    path("v1/api-keys/<str:key_id>", apis.ApiKeyDetailApi.as_view(), name="v1-api-key"),
    path("v1/api-keys/<str:key_id>/rotate", apis.ApiKeyRotateApi.as_view(), name="v1-api-key-rotate"),
    path("settings/api-keys", views.api_keys_page, name="api-keys-page"),
]
