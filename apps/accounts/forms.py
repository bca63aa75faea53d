"""Sign-in and password-reset forms: Django's own, throttled by the one limiter (apps/ratelimit).

Only ``clean()`` is extended; Django's checks run unchanged inside it. The same
sign-in form serves /login and, through ``AdminSite.login_form``, /admin/login/,
so both spend the same budgets. A form refused by a budget keeps the seconds to
wait in ``retry_after``; its view answers 429 with ``Retry-After``. A limiter
that cannot answer raises LimiterUnavailable, which RateLimitMiddleware turns
into a 503 page: sign-in and reset fail closed.
"""

from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm
from django.core.exceptions import ValidationError

from apps.audit.services import audit_sign_in
from apps.ratelimit.public import (
    RateLimited,
    ratelimit_password_reset,
    ratelimit_signin_attempt,
    ratelimit_signin_succeeded,
    wait_phrase,
)

# The same words whichever budget refused and whether or not the account exists.
SIGNIN_WAIT = "Too many sign-in attempts. Wait {wait}, then try again."
RESET_WAIT = "Too many password reset requests. Wait {wait}, then try again."


class ThrottledSignInMixin:
    """AuthenticationForm.clean behind the sign-in budgets (budgets.py "Sign-in and password reset")."""

    retry_after: int | None = None
    audit_page = "sign-in"

    def clean(self):
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is None or not password:
            return super().clean()  # a field is missing: no password is checked
        try:
            ratelimit_signin_attempt(request=self.request, account=username)
        except RateLimited as limited:
            # The password is not checked at all: a right one waits like a wrong one.
            self.retry_after = limited.decision.retry_after
            raise ValidationError(SIGNIN_WAIT.format(wait=wait_phrase(self.retry_after)), code="throttled") from None
        try:
            cleaned = super().clean()  # a wrong password raises here, and the reserved failure stays spent
        except ValidationError:
            self._audit_failure(username)
            raise
        ratelimit_signin_succeeded(request=self.request, account=username)
        audit_sign_in(user=self.get_user(), request=self.request, succeeded=True, page=self.audit_page)
        return cleaned

    def _audit_failure(self, username: str) -> None:
        # The account's owner sees attempts on it in Activity; an unknown address has no owner.
        user = self.get_user() or get_user_model()._default_manager.filter(email__iexact=username).first()
        if user is not None:
            audit_sign_in(user=user, request=self.request, succeeded=False, page=self.audit_page)


class SignInForm(ThrottledSignInMixin, AuthenticationForm):
    pass


class AdminSignInForm(ThrottledSignInMixin, AdminAuthenticationForm):
    """The admin's sign-in: staff only (Django's check), the same budgets as /login."""

    audit_page = "admin"


class ThrottledPasswordResetForm(PasswordResetForm):
    """PasswordResetForm behind the reset budgets: every request counts, known address or not."""

    retry_after: int | None = None

    def __init__(self, *args, request=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.request = request

    def clean(self):
        cleaned = super().clean()
        email = cleaned.get("email")
        if email:
            try:
                ratelimit_password_reset(request=self.request, account=email)
            except RateLimited as limited:
                self.retry_after = limited.decision.retry_after
                raise ValidationError(RESET_WAIT.format(wait=wait_phrase(self.retry_after)), code="throttled") from None
        return cleaned


def throttled_response(response, form):
    """A page re-shown because a budget refused ``form``: 429 with Retry-After, the form saying to wait."""
    retry_after = getattr(form, "retry_after", None)
    if retry_after:
        response.status_code = 429
        response["Retry-After"] = str(retry_after)
    return response
