"""The peer's reads, on the service's paths (so the cases' own request lines reach them)."""

from django.urls import path

from . import views

urlpatterns = [
    path("v1/me", views.MeView.as_view()),
    path("v1/rates", views.RateView.as_view()),
    path("v1/balance_transactions", views.LedgerView.as_view()),
    path("v1/calls", views.CallListView.as_view()),
    path("v1/contacts", views.ContactListView.as_view()),
    path("v1/messages", views.MessageListView.as_view()),
]
