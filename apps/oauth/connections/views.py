"""GET /api/oauth/connections, DELETE /api/oauth/connections/{client_id} (session
and CSRF header, envelope errors) and the Connected apps screen."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from rest_framework.response import Response

from apps.audit.selectors import audit_recent_sensitive_actions_by_app
from apps.core.errors import ApiError
from apps.core.timefmt import unix_seconds

from ..session_api import SessionJsonApi
from .selectors import Connection, connection_list
from .services import connection_revoke

LIST_URL = "/api/oauth/connections"


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
        "api_versions": connection.api_versions,
        "disabled": application.is_disabled,
        "first_authorized": unix_seconds(connection.first_authorized),
        "last_used": unix_seconds(connection.last_used),
    }


class ConnectionListApi(SessionJsonApi):
    """GET /api/oauth/connections: the user's connected apps."""

    http_method_names = ["get", "head"]

    def get(self, request):
        data = [connection_payload(c) for c in connection_list(user=request.user)]
        return Response({"object": "list", "data": data, "has_more": False, "url": LIST_URL})


class ConnectionApi(SessionJsonApi):
    """DELETE /api/oauth/connections/{client_id}: disconnect, revoking every token of the app at once."""

    http_method_names = ["delete"]

    def delete(self, request, client_id: str):
        application = connection_revoke(user=request.user, client_id=client_id)
        return Response(
            {
                "object": "oauth_connection",
                "client_id": application.client_id,
                "name": application.name,
                "deleted": True,
            }
        )


RECENT_ON_PAGE = 3


@never_cache
@require_GET
@login_required
def connected_apps_page(request):
    """Each connected app: what it can do, when it last got a token, and its latest sensitive actions."""
    connections = connection_list(user=request.user)
    recent = audit_recent_sensitive_actions_by_app(
        user=request.user, client_ids=[c.client_id for c in connections], limit=RECENT_ON_PAGE
    )
    entries = [(connection, recent.get(connection.client_id, [])) for connection in connections]
    return render(request, "settings/connected_apps.html", {"entries": entries})


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
