"""The numbers routes, relative to /v1/."""

from django.urls import path

from . import apis

urlpatterns = [
    path("numbers", apis.NumberListApi.as_view(), name="v1-numbers"),
    path("numbers/<str:number_id>", apis.NumberDetailApi.as_view(), name="v1-number"),
    path("caller_ids", apis.CallerIdListApi.as_view(), name="v1-caller-ids"),
]
