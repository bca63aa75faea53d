"""GET /oauth/authorize: every rule of docs/spec.md 4.3, then a consent transaction.

A bad client or redirect URI renders an error page and never redirects (the
redirect target is not trusted yet); every later error goes back to the
client with ``error``, ``error_description``, ``state`` and ``iss``.
"""

import re
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from apps.core.ids import looks_like, new_secret
from apps.credentials.scopes import is_known, parse_scope_string

from ..selectors import client_get_for_authorize, permitted_resources, redirect_uri_allowed
from ..services import authorize_error_redirect, transaction_create

BINDING_COOKIE = "oauth_binding"
SINGLE_PARAMS = ("state", "code_challenge", "code_challenge_method", "scope")
PKCE_CHALLENGE = re.compile(r"[A-Za-z0-9._~-]{43,128}")
BINDING_COOKIE_AGE = 24 * 3600


def error_page(request, error: str, description: str, status: int = 400):
    return render(request, "oauth/error.html", {"error": error, "description": description}, status=status)


def _redirect_error(redirect_uri, state, error, description):
    return HttpResponseRedirect(
        authorize_error_redirect(redirect_uri=redirect_uri, error=error, description=description, state=state)
    )


def _first_redirect_error(params) -> tuple[str, str] | None:
    """The first rule of docs/spec.md 4.3 broken after the client and redirect URI are known good."""
    if params.getlist("response_type") != ["code"]:
        return "unsupported_response_type", "response_type must be code."
    repeated = [name for name in SINGLE_PARAMS if len(params.getlist(name)) > 1]
    if repeated:
        return "invalid_request", f"{repeated[0]} must be given once."
    if not params.get("state"):
        return "invalid_request", "state is required."
    if not params["state"].isprintable():
        # RFC 6749 state is visible characters; PostgreSQL cannot store a NUL in it.
        return "invalid_request", "state must not contain control characters."
    if not params.get("code_challenge"):
        return "invalid_request", "code_challenge is required."
    if not PKCE_CHALLENGE.fullmatch(params["code_challenge"]):
        return "invalid_request", "code_challenge must be 43 to 128 characters of base64url."
    if params.get("code_challenge_method") != "S256":
        return "invalid_request", "code_challenge_method must be S256."
    resources = params.getlist("resource")
    if len(resources) != 1 or resources[0] not in permitted_resources():
        return "invalid_target", "resource must be given once, as {} or {}.".format(*permitted_resources())
    scopes = parse_scope_string(params.get("scope", ""))
    if not scopes or not all(is_known(s) for s in scopes):
        return "invalid_scope", "scope must list one or more known scopes."
    return None


@never_cache
@require_GET
def authorize(request):
    params = request.GET
    client_id = params.get("client_id") if len(params.getlist("client_id")) == 1 else None
    application = client_get_for_authorize(client_id, request)
    if application is None:
        return error_page(request, "invalid_client", "This app is unknown, invalid or disabled.")
    redirect_uri = params.get("redirect_uri")
    if len(params.getlist("redirect_uri")) != 1 or not redirect_uri_allowed(application, redirect_uri):
        return error_page(request, "invalid_request", "The redirect URI is not registered for this app.")
    state = params.get("state") or None
    problem = _first_redirect_error(params)
    if problem is not None:
        return _redirect_error(redirect_uri, state, *problem)
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())

    binding = request.COOKIES.get(BINDING_COOKIE, "")
    if not looks_like(binding, ""):
        binding = new_secret("")
    try:
        txn = transaction_create(
            application=application,
            user=request.user,
            binding_secret=binding,
            scopes=parse_scope_string(params["scope"]),
            redirect_uri=redirect_uri,
            state=state,
            code_challenge=params["code_challenge"],
            resource=params["resource"],
        )
    except Exception:
        return _redirect_error(redirect_uri, state, "server_error", "The authorization request could not be stored.")
    response = HttpResponseRedirect(f"{settings.APP_URL}/oauth/consent?{urlencode({'transaction': txn.pk})}")
    response.set_cookie(
        BINDING_COOKIE,
        binding,
        max_age=BINDING_COOKIE_AGE,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
    return response
