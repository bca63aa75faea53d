"""Sign-in pages: Django's LoginView and admin login with the throttled form (apps/accounts/forms.py)."""

from django.contrib import admin
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.contrib.auth import views as auth_views
from django.forms.utils import ErrorDict
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from .forms import AdminSignInForm, SignInForm, throttled_response


class SignInView(auth_views.LoginView):
    template_name = "accounts/login.html"
    authentication_form = SignInForm

    def form_invalid(self, form):
        return throttled_response(super().form_invalid(form), form)

    @classmethod
    def bad_request_page(cls, request, message: str):
        """The sign-in page, 400, for a POST Django could not read (too many fields, a body over its
        cap, a broken multipart body): the form again with the reason, never Django's bare page
        (apps/core/views.handler400). Nothing was checked, so no sign-in budget is spent."""
        # Built without the view's context: it reads the query string, which may be what Django refused.
        context = {"form": cls.authentication_form(request), "refused": message, "next": ""}
        return TemplateResponse(request, cls.template_name, context, status=400)


class AdminSite(admin.AdminSite):
    """Django's admin site, its sign-in throttled like /login (set as the default site in apps.AdminConfig)."""

    login_form = AdminSignInForm

    def login(self, request, extra_context=None):
        response = super().login(request, extra_context)
        form = (getattr(response, "context_data", None) or {}).get("form")
        return throttled_response(response, form)

    def bad_request_page(self, request, message: str):
        """The admin's sign-in page, 400, for a POST Django could not read: its form again with the
        reason as the form's error, as SignInView.bad_request_page does for /login."""
        form = self.login_form(request)
        form._errors = ErrorDict({"__all__": form.error_class([f"The form could not be read: {message}"])})
        context = {
            **self.each_context(request),
            "title": _("Log in"),
            "subtitle": None,
            "app_path": request.path,
            "form": form,
            "username": "",
            REDIRECT_FIELD_NAME: "",
        }
        return TemplateResponse(request, self.login_template or "admin/login.html", context, status=400)
