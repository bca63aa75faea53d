"""The contacts routes, relative to /v1/."""

from django.urls import path

from . import apis

urlpatterns = [
    path("contacts", apis.ContactListApi.as_view(), name="v1-contacts"),
    path("contacts/<str:contact_id>", apis.ContactDetailApi.as_view(), name="v1-contact"),
]
