from django.contrib.auth import views as auth_views
from django.urls import path

from . import signin_views

urlpatterns = [
    path("login", signin_views.SignInView.as_view(), name="login"),
    path("logout", auth_views.LogoutView.as_view(template_name="accounts/logged_out.html"), name="logout"),
]
