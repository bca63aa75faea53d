"""DOT's own URLconf, where its tutorial mounts it."""

from django.urls import include, path

urlpatterns = [path("o/", include("oauth2_provider.urls", namespace="oauth2_provider"))]
