"""The Connected apps screen: each app the account allowed, what it can do, its latest sensitive
actions and the webhook endpoints it created, and the Disconnect button."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from apps.audit.selectors import audit_recent_sensitive_actions_by_app
from apps.core.errors import ApiError
from apps.oauth.connections.selectors import connection_list
from apps.oauth.connections.services import connection_revoke
from apps.webhooks.public import endpoints_by_connection

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
    endpoints = endpoints_by_connection(user_id=request.user.pk, client_ids=[c.client_id for c in connections])
    rows = [
        (connection, recent.get(connection.client_id, []), endpoints.get(connection.client_id, []))
        for connection in connections
    ]
    return render(request, "settings/connected_apps.html", {"rows": rows})


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
