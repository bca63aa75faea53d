"""The calls routes, relative to /v1/."""

from django.urls import path

from . import apis

urlpatterns = [
    path("calls", apis.CallListApi.as_view(), name="v1-calls"),
    path("calls/<str:call_id>", apis.CallDetailApi.as_view(), name="v1-call"),
]
