"""The rates routes, relative to /v1/."""

from django.urls import path

from . import apis

urlpatterns = [
    path("rates", apis.RateApi.as_view(), name="v1-rates"),
]
