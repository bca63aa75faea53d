"""The carriers' callbacks, mounted at /carrier/."""

from django.urls import path

from . import views

urlpatterns = [path("<slug:name>/<slug:what>", views.carrier_callback, name="carrier-callback")]
