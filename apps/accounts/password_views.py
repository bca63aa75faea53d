"""Django's password reset (by email) and change flows, each followed by the
revocation of every token and key (apps/accounts/security.py)."""

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.db import transaction
from django.urls import reverse_lazy

from apps.audit.models import EventType
from apps.audit.services import actor_user

from .forms import ThrottledPasswordResetForm, throttled_response
from .security import user_credentials_revoke_all


class PasswordResetView(auth_views.PasswordResetView):
    template_name = "registration/password_reset_form.html"
    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"
    form_class = ThrottledPasswordResetForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "request": self.request}

    def form_invalid(self, form):
        return throttled_response(super().form_invalid(form), form)

    @property
    def extra_email_context(self):
        # Links point at the web application, whatever host the form was posted to.
        return {"app_url": settings.APP_URL}


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "registration/password_reset_confirm.html"

    def form_valid(self, form):
        with transaction.atomic():
            response = super().form_valid(form)
            # The holder of the emailed link acts for the account.
            user_credentials_revoke_all(
                user=form.user, event_type=EventType.PASSWORD_RESET, actor=actor_user(form.user)
            )
        return response


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "registration/password_change_form.html"
    success_url = reverse_lazy("password_change_done")

    def form_valid(self, form):
        with transaction.atomic():
            response = super().form_valid(form)
            user_credentials_revoke_all(user=form.user, event_type=EventType.PASSWORD_CHANGED)
        return response
