"""Account settings pages: password reset and change.
Included from config/urls.py; URL names are Django's own for the password flows."""

from django.contrib.auth import views as auth_views
from django.urls import path

from . import password_views

urlpatterns = [
    path("password-reset", password_views.PasswordResetView.as_view(), name="password_reset"),
    path(
        "password-reset/sent",
        auth_views.PasswordResetDoneView.as_view(template_name="registration/password_reset_done.html"),
        name="password_reset_done",
    ),
    path(
        "password-reset/<uidb64>/<token>",
        password_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password-reset/complete",
        auth_views.PasswordResetCompleteView.as_view(template_name="registration/password_reset_complete.html"),
        name="password_reset_complete",
    ),
    path("settings/password", password_views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "settings/password/done",
        auth_views.PasswordChangeDoneView.as_view(template_name="registration/password_change_done.html"),
        name="password_change_done",
    ),
]
