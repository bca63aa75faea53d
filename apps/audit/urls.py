from django.urls import path

from . import views

urlpatterns = [
    path("settings/activity", views.activity_page, name="activity-page"),
]
