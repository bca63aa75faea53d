from django.urls import path

from .views import RegisterView

urlpatterns = [
    path("oauth/register", RegisterView.as_view(), name="oauth-register"),
]
