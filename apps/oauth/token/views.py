"""POST /oauth/token and POST /oauth/revoke (docs/spec.md 4.3, errors of 7.3).

Form body only: a query string is refused before anything else is read, so a
code or token never travels where logs and referrers keep it.
"""

import json
import logging
import re

from django.http import HttpResponse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider.views.mixins import OAuthLibMixin

from apps.core.envelope import oauth_error_response
from apps.core.middleware import is_database_outage
from apps.core.request_context import notes
from apps.ratelimit.public import LimiterUnavailable, RateLimited, render_refusal

from . import lockouts
from .issuing import exchange_transaction
from .revocation import token_revoke

log = logging.getLogger(__name__)

FORM = "application/x-www-form-urlencoded"
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
REQUIRED = {
    "authorization_code": ("code", "code_verifier", "client_id", "redirect_uri", "resource"),
    "refresh_token": ("refresh_token", "client_id"),
}
CREDENTIAL_FIELD = {"authorization_code": "code", "refresh_token": "refresh_token"}


def _form_problem(request):
    """Why the request is not a plain form POST, or None."""
    if request.META.get("QUERY_STRING"):
        return "Parameters must be sent in the form body, not the query string."
    if request.content_type != FORM:
        return f"The body must be {FORM}."
    # Django refuses any other charset with a bare HTML 400 when POST is read (RFC 1866).
    if request.encoding and request.encoding.lower() != "utf-8":
        return f"The body must be {FORM} in UTF-8."
    # No OAuth parameter holds a control character, and PostgreSQL refuses NUL in text.
    if any(CONTROL.search(key + "".join(values)) for key, values in request.POST.lists()):
        return "Parameters must not contain control characters."
    return None


def _single(request, name):
    values = request.POST.getlist(name)
    return values[0] if len(values) == 1 else (None if not values else False)


@method_decorator(csrf_exempt, name="dispatch")
class TokenView(OAuthLibMixin, View):
    http_method_names = ["post", "options"]

    def http_method_not_allowed(self, request, *args, **kwargs):
        return oauth_error_response("invalid_request", "Use POST.", status=405, headers={"Allow": "POST"})

    def post(self, request, *args, **kwargs):
        # The flood guard and a backed-off source were refused by path before this view.
        problem = _form_problem(request)
        if problem:
            return oauth_error_response("invalid_request", problem)
        grant_type = _single(request, "grant_type")
        if not grant_type:
            return oauth_error_response("invalid_request", "grant_type is required, once.")
        if grant_type not in REQUIRED:
            return oauth_error_response(
                "unsupported_grant_type", "grant_type must be authorization_code or refresh_token."
            )
        for name in REQUIRED[grant_type]:
            if not _single(request, name):
                return oauth_error_response("invalid_request", f"{name} is required, once.")
        if grant_type == "refresh_token" and _single(request, "resource") is False:
            return oauth_error_response("invalid_request", "resource may be given once.")

        try:
            # A refresh's grant-family budget is applied by the validator once every check
            # has passed, before any write; a refusal rolls this transaction back.
            with exchange_transaction(grant_type):
                _, headers, body, status = self.create_token_response(request)
        except (RateLimited, LimiterUnavailable) as refused:
            return render_refusal(request, refused)
        except Exception as exc:
            if is_database_outage(exc):
                raise  # DatabaseUnavailableMiddleware answers 503 temporarily_unavailable with Retry-After
            log.exception("token exchange failed")
            return oauth_error_response("server_error", "The exchange failed on the server.", status=500)

        client_id = request.POST.get("client_id")
        if status == 200:
            if grant_type == "authorization_code":  # a refresh was counted before its writes
                lockouts.code_exchange_succeeded(request, client_id=client_id)
        elif json.loads(body).get("error") == "invalid_grant" and not notes(request).oauth_credential_revoked_by_user:
            # A known code or token the user revoked (disconnect) is not a failed guess (docs/spec.md 8.3).
            lockouts.exchange_failed(
                request,
                grant_type=grant_type,
                credential=request.POST[CREDENTIAL_FIELD[grant_type]],
                client_id=client_id,
            )
        response = HttpResponse(body, status=status, content_type="application/json")
        for name, value in headers.items():
            if name.lower() != "content-type":
                response[name] = value
        response["Cache-Control"] = "no-store"
        response["Pragma"] = "no-cache"
        return response


@csrf_exempt
def revoke(request):
    """RFC 7009: always 200 once a token is given, known or not."""
    if request.method != "POST":
        return oauth_error_response("invalid_request", "Use POST.", status=405, headers={"Allow": "POST"})
    problem = _form_problem(request)
    if problem:
        return oauth_error_response("invalid_request", problem)
    token = request.POST.get("token")
    if not token:
        return oauth_error_response("invalid_request", "token is required.")
    token_revoke(token=token, client_id=request.POST.get("client_id"))
    response = HttpResponse(status=200)
    response["Cache-Control"] = "no-store"
    return response
