"""GET /api/oauth/connections, DELETE /api/oauth/connections/{client_id} (session
and CSRF header, envelope errors) and the Connected apps screen."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from apps.core.envelope import error_response
from apps.core.envelope import render as render_error
from apps.core.errors import ApiError
from apps.core.timefmt import unix_seconds
from apps.credentials.challenges import invalid_token

from .selectors import Connection, connection_list
from .services import connection_revoke

LIST_URL = "/api/oauth/connections"
ALLOWED = ("GET", "DELETE")


def sign_in_message() -> str:
    return f"Sign in to your account at {settings.APP_URL}/login to manage connected apps."


def connection_payload(connection: Connection) -> dict:
    application = connection.application
    return {
        "object": "oauth_connection",
        "client_id": connection.client_id,
        "name": connection.name,
        "registration": application.registration_kind,
        "redirect_host": connection.redirect_host,
        "redirect_hosts": connection.redirect_hosts,
        "scopes": connection.scope_details,
        "resources": connection.resources,
        "disabled": application.is_disabled,
        "first_authorized": unix_seconds(connection.first_authorized),
        "last_used": unix_seconds(connection.last_used),
    }


def _json(payload, status=200) -> JsonResponse:
    response = JsonResponse(payload, status=status)
    response["Cache-Control"] = "no-store"
    return response


def _csrf_failed(request) -> bool:
    return CsrfViewMiddleware(lambda r: None).process_view(request, None, (), {}) is not None


def _refuse(request, allowed: tuple[str, ...]):
    """The envelope answer when the session, method or CSRF check fails, else None."""
    if request.method not in allowed:
        response = render_error(request, "method_not_allowed")
        response["Allow"] = ", ".join(allowed)
        return response
    if not request.user.is_authenticated:
        return error_response(request, invalid_token("v1", sign_in_message()))
    if request.method not in ("GET", "HEAD") and _csrf_failed(request):
        return render_error(request, "forbidden", "The CSRF check failed. Reload the page and try again.")
    return None


@csrf_exempt  # checked in _refuse, so that a failure answers in the envelope
@never_cache
def connections_api(request):
    refused = _refuse(request, ("GET", "HEAD"))
    if refused is not None:
        return refused
    data = [connection_payload(c) for c in connection_list(user=request.user)]
    return _json({"object": "list", "data": data, "has_more": False, "url": LIST_URL})


@csrf_exempt  # checked in _refuse, so that a failure answers in the envelope
@never_cache
def connection_api(request, client_id: str):
    refused = _refuse(request, ("DELETE",))
    if refused is not None:
        return refused
    try:
        application = connection_revoke(user=request.user, client_id=client_id)
    except ApiError as error:
        return error_response(request, error)
    return _json(
        {"object": "oauth_connection", "client_id": application.client_id, "name": application.name, "deleted": True}
    )


@never_cache
@require_GET
@login_required
def connected_apps_page(request):
    return render(request, "settings/connected_apps.html", {"connections": connection_list(user=request.user)})


@never_cache
@require_POST
@login_required
def disconnect_form(request):
    """The screen's Disconnect button: a plain form POST (CSRF by the middleware),
    so it works without JavaScript and takes effect before the page reloads."""
    client_id = request.POST.get("client_id", "")
    try:
        application = connection_revoke(user=request.user, client_id=client_id)
    except ApiError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"Disconnected {application.name or application.client_id}.")
    return redirect("connected-apps-page")
