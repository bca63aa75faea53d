"""The API keys screen of the dashboard."""

from django.urls import path

from . import views

urlpatterns = [
    path("settings/api-keys", views.api_keys_page, name="api-keys-page"),
]
