"""The API-key management endpoints, relative to /v1/ (no trailing slashes)."""

from django.urls import path

from . import apis

urlpatterns = [
    path("api-keys", apis.ApiKeyListCreateApi.as_view(), name="v1-api-keys"),
    path("api-keys/<str:key_id>", apis.ApiKeyDetailApi.as_view(), name="v1-api-key"),
    path("api-keys/<str:key_id>/rotate", apis.ApiKeyRotateApi.as_view(), name="v1-api-key-rotate"),
]
