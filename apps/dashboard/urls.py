"""The billing page of the dashboard (``{APP_URL}/billing``)."""

from django.urls import path

from . import views

urlpatterns = [path("billing", views.billing_page, name="billing-page")]
