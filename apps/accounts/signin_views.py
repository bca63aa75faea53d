"""Sign-in pages: Django's LoginView and admin login with the throttled form (apps/accounts/forms.py)."""

from django.contrib import admin
from django.contrib.auth import views as auth_views

from .forms import AdminSignInForm, SignInForm, throttled_response


class SignInView(auth_views.LoginView):
    template_name = "accounts/login.html"
    authentication_form = SignInForm

    def form_invalid(self, form):
        return throttled_response(super().form_invalid(form), form)


class AdminSite(admin.AdminSite):
    """Django's admin site, its sign-in throttled like /login (set as the default site in apps.AdminConfig)."""

    login_form = AdminSignInForm

    def login(self, request, extra_context=None):
        response = super().login(request, extra_context)
        form = (getattr(response, "context_data", None) or {}).get("form")
        return throttled_response(response, form)
