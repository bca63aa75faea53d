"""`POST /oauth/register` (RFC 7591, docs/spec.md 4.3): open registration of public clients.

DOT's ``DynamicClientRegistrationView`` is not used: it accepts confidential
clients and several grants, answers without ``dcr_`` ids and issues an RFC 7592
registration access token. This service has no client configuration endpoint,
so it issues no registration token at all and nothing like one can be presented
as a bearer.
"""

import json

from django.http import JsonResponse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from apps.core.envelope import oauth_error_response
from apps.core.surfaces import body_cap, declared_length
from apps.core.timefmt import unix_seconds

from .metadata import INVALID_CLIENT_METADATA, ClientMetadataError, client_metadata_validate
from .services import REGISTRATION_CLOSED_RETRY_AFTER, RegistrationClosed, client_register

# A registration is a few hundred bytes; the cap bounds what an anonymous caller makes us parse.
BODY_CAP = body_cap("/oauth/register")


def registration_record(client, metadata) -> dict:
    """The registration record of docs/spec.md 2.5; fields the client sent are echoed."""
    record = {
        "client_id": client.client_id,
        "client_id_issued_at": unix_seconds(client.created),
        "redirect_uris": list(metadata.redirect_uris),
        "token_endpoint_auth_method": "none",
        "grant_types": list(metadata.grant_types),
        "response_types": list(metadata.response_types),
        "client_name": client.name,
        "application_type": client.application_type,
    }
    if client.client_uri:
        record["client_uri"] = client.client_uri
    return record


def _read_json(request) -> object:
    if (declared_length(request) or 0) > BODY_CAP:
        raise ClientMetadataError(INVALID_CLIENT_METADATA, "The request body is larger than 16 KB.")
    body = request.read(BODY_CAP + 1)
    if len(body) > BODY_CAP:
        raise ClientMetadataError(INVALID_CLIENT_METADATA, "The request body is larger than 16 KB.")
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ClientMetadataError(INVALID_CLIENT_METADATA, "The request body must be a JSON object.") from exc


@method_decorator(csrf_exempt, name="dispatch")
class RegisterView(View):
    """Anonymous by design (MCP clients register before any user exists); CSRF does not apply."""

    http_method_names = ["post", "options"]

    def post(self, request):
        try:
            metadata = client_metadata_validate(data=_read_json(request))
            client = client_register(metadata=metadata)
        except ClientMetadataError as exc:
            return oauth_error_response(exc.error, exc.description)
        except RegistrationClosed:
            return oauth_error_response(
                "temporarily_unavailable",
                "Registration is closed for now. Retry later.",
                status=503,
                headers={"Retry-After": str(REGISTRATION_CLOSED_RETRY_AFTER)},
            )
        response = JsonResponse(registration_record(client, metadata), status=201)
        response["Cache-Control"] = "no-store"
        return response

    def http_method_not_allowed(self, request, *args, **kwargs):
        return oauth_error_response(
            "invalid_request", "Register a client with POST.", status=405, headers={"Allow": "POST, OPTIONS"}
        )
