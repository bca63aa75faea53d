"""The messages routes, relative to /v1/."""

from django.urls import path

from . import apis, test_helpers

urlpatterns = [
    path("messages", apis.MessageListApi.as_view(), name="v1-messages"),
    path("messages/<str:message_id>", apis.MessageDetailApi.as_view(), name="v1-message"),
    path("test_helpers/messages", test_helpers.TestMessageApi.as_view(), name="v1-test-helpers-messages"),
]
