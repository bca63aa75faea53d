"""GET /api/oauth/connections, DELETE /api/oauth/connections/{client_id} (session
and CSRF header, envelope errors); the Connected apps screen is the dashboard's."""

from rest_framework.response import Response

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
