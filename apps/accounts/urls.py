"""The account's /v1 routes, relative to /v1/."""

from django.urls import path

from . import apis

urlpatterns = [
    path("me", apis.me_view, name="v1-me"),
]
