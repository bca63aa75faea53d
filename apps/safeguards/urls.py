"""The confirmation page and the Connected apps rules form; included from config/urls.py."""

from django.urls import path

from . import views

urlpatterns = [
    path("confirm/<str:token>", views.confirmation_page, name="safeguards-confirm"),
    path("settings/connected-apps/rules", views.rules_form, name="connected-apps-rules"),
]
