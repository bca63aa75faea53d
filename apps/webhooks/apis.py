"""/v1/webhook_endpoints and /v1/events (docs/design.md "Webhooks"). Scope webhooks:manage.

Endpoints and events are the caller's account's, in the caller's mode; another
account's or the other mode's read as absent (404 ``not_found``). Writes and
reads alike spend the reads budget.
"""

import re
from datetime import UTC, datetime

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import status
from rest_framework.response import Response

from apps.api_v1.public import (
    Operation,
    PathId,
    ResourceActionApi,
    ResourceDetailApi,
    ResourceListApi,
    error_response,
    found_or_404,
    query_choice,
)
from apps.core.errors import ApiError
from apps.ratelimit.public import budgets

from . import delivery as deliveries
from . import events as types
from . import selectors, services
from .models import DELIVERY_PREFIX, ENDPOINT_PREFIX, EVENT_PREFIX, DeliveryStatus
from .serializers import deleted_endpoint_payload, delivery_payload, endpoint_payload, event_payload

SCOPE = "webhooks:manage"
ENDPOINT_TAGS = ["Webhook endpoints"]
EVENT_TAGS = ["Events"]
# No description: every route of these ids, the actions' too, documents them by their pattern alone
# (openapi.PATH_ID_PREFIXES).
ENDPOINT_ID = PathId("endpoint_id", ENDPOINT_PREFIX, message="No such webhook endpoint.")
EVENT_ID = PathId("event_id", EVENT_PREFIX, message="No such event (events are kept 30 days).")


def _object(description: str) -> OpenApiResponse:
    return OpenApiResponse(response=OpenApiTypes.OBJECT, description=description)


def _body(request) -> dict:
    data = request.data
    if not request.body.strip():
        return {}
    if not isinstance(data, dict):
        raise ApiError("invalid_body", "The request body must be a JSON object.")
    return data


def _endpoint_or_404(request, endpoint_id: str, *, param: str = ENDPOINT_ID.name):
    endpoint = selectors.endpoint_get(principal=request.auth, endpoint_id=endpoint_id)
    return found_or_404(endpoint, param, ENDPOINT_ID.message)


# The webhooks' writes: POST-only actions under the webhooks scope.
class _WebhookActionApi(ResourceActionApi):
    required_scope = SCOPE
    # Writes and reads alike spend the reads budget.
    ratelimit_class = budgets.READS


def read_write(read_view, write_view):
    """One route served by two views: reads by a resource view (with the fast path in front),
    writes by an idempotent action view (idempotency wraps DRF's cycle, which the fast path skips).

    The route's class, for the OpenAPI document, OPTIONS and route discovery, joins both.
    """
    methods = list(dict.fromkeys([*read_view.http_method_names, *write_view.http_method_names]))
    joined = type(
        read_view.__name__.removesuffix("Api") + "Route",
        (write_view, read_view),
        {
            "http_method_names": methods,
            "__module__": read_view.__module__,
            "__doc__": read_view.__doc__,
        },
    )
    read, write = read_view.as_view(), joined.drf_view()

    def view(request, *args, **kwargs):
        chosen = read if request.method in ("GET", "HEAD") else write
        return chosen(request, *args, **kwargs)

    view.cls, view.initkwargs, view.view_class = joined, {}, joined
    view.fast_path = getattr(read, "fast_path", False)
    view.csrf_exempt = True
    return view


class WebhookEndpointListApi(ResourceListApi):
    """The webhook endpoints of the credential's mode, at most 16; a secret is shown only when it is
    made (created or rotated), so every endpoint here has secret null."""

    required_scope = SCOPE
    cursor_id_prefix = ENDPOINT_PREFIX
    operation = Operation(
        "list_webhook_endpoints",
        ENDPOINT_TAGS,
        "List the account's webhook endpoints in this mode, newest first",
        responses={200: _object("A list of webhook_endpoint objects (secret null).")},
    )

    def get_rows(self, request):
        return selectors.endpoint_list(principal=request.auth)

    def payload(self, endpoint) -> dict:
        return endpoint_payload(endpoint)


class WebhookEndpointCreateApi(_WebhookActionApi):
    idempotency_redacted_fields = ("secret",)
    operation = Operation(
        "create_webhook_endpoint",
        ENDPOINT_TAGS,
        "Create a webhook endpoint; the answer holds its whsec_ secret, shown once",
        request=OpenApiTypes.OBJECT,
        responses={
            201: _object("The webhook_endpoint, with its secret."),
            400: error_response(
                "invalid_url (param url); invalid_request (param url, enabled_events, description or an unknown "
                "field): a type unknown, listed twice, or beyond the credential's scopes."
            ),
            409: error_response("webhook_endpoint_limit: already 16 endpoints in this account and mode."),
        },
    )

    def post(self, request):
        """The endpoint receives the events of its enabled_events, each signed with its whsec_ secret
        (Standard Webhooks). The secret is shown in this answer only: a replay of the same
        Idempotency-Key answers it as null."""
        endpoint, secret = services.endpoint_create(principal=request.auth, data=_body(request))
        return Response(endpoint_payload(endpoint, secret=secret), status=status.HTTP_201_CREATED)


class WebhookEndpointDetailApi(ResourceDetailApi):
    """One webhook endpoint of the credential's mode; its secret is null (it is shown only when made)."""

    required_scope = SCOPE
    path_id = ENDPOINT_ID
    operation = Operation(
        "retrieve_webhook_endpoint",
        ENDPOINT_TAGS,
        "Read one webhook endpoint",
        responses={200: _object("The webhook_endpoint (secret null).")},
    )

    def get_row(self, request, endpoint_id: str):
        return selectors.endpoint_get(principal=request.auth, endpoint_id=endpoint_id)

    def payload(self, endpoint) -> dict:
        return endpoint_payload(endpoint)


class WebhookEndpointChangeApi(_WebhookActionApi):
    http_method_names = ["post", "delete", "options"]
    operations = {
        "post": Operation(
            "update_webhook_endpoint",
            ENDPOINT_TAGS,
            "Change url, enabled_events, description, or disable (disabled: true) and enable it",
            request=OpenApiTypes.OBJECT,
            responses={
                200: _object("The webhook_endpoint."),
                400: error_response(
                    "invalid_url (param url); invalid_request (param enabled_events, description, disabled)."
                ),
            },
        ),
        "delete": Operation(
            "delete_webhook_endpoint",
            ENDPOINT_TAGS,
            "Delete a webhook endpoint; its pending attempts are dropped",
            responses={200: _object('{"id", "object": "webhook_endpoint", "deleted": true}')},
        ),
    }

    def post(self, request, endpoint_id: str):
        """Only the fields sent change."""
        endpoint = _endpoint_or_404(request, endpoint_id)
        endpoint = services.endpoint_update(principal=request.auth, endpoint=endpoint, data=_body(request))
        return Response(endpoint_payload(endpoint))

    def delete(self, request, endpoint_id: str):
        """The endpoint receives nothing more, and its pending attempts are dropped."""
        endpoint_id = services.endpoint_delete(principal=request.auth, endpoint=_endpoint_or_404(request, endpoint_id))
        return Response(deleted_endpoint_payload(endpoint_id))


class WebhookEndpointRotateApi(_WebhookActionApi):
    idempotency_redacted_fields = ("secret",)
    operation = Operation(
        "rotate_webhook_endpoint_secret",
        ENDPOINT_TAGS,
        "A new secret; the old one keeps signing beside it for expires_in seconds (default 86400)",
        request=OpenApiTypes.OBJECT,
        responses={
            200: _object("The webhook_endpoint with its new secret and previous_secret_expires_at."),
            400: error_response("invalid_request (param expires_in): not a whole number from 0 to 604800."),
        },
    )

    def post(self, request, endpoint_id: str):
        """The new secret is shown in this answer only. For expires_in seconds the old one signs beside
        it, so a receiver can change over without refusing an event."""
        endpoint = _endpoint_or_404(request, endpoint_id)
        endpoint, secret = services.endpoint_rotate_secret(
            principal=request.auth, endpoint=endpoint, data=_body(request)
        )
        return Response(endpoint_payload(endpoint, secret=secret))


class WebhookEndpointTestApi(_WebhookActionApi):
    operation = Operation(
        "test_webhook_endpoint",
        ENDPOINT_TAGS,
        "Send a ping event to this endpoint now",
        request=None,
        responses={
            202: _object("The ping event, on its way."),
            400: error_response("invalid_request: the endpoint is disabled."),
        },
    )

    def post(self, request, endpoint_id: str):
        """A ping event, to this endpoint only, signed and delivered as every event is."""
        event = services.endpoint_send_test(endpoint=_endpoint_or_404(request, endpoint_id))
        return Response(event_payload(event), status=status.HTTP_202_ACCEPTED)


class WebhookDeliveryListApi(ResourceListApi):
    """Each delivery of an event to this endpoint, with its status; filter by status."""

    required_scope = SCOPE
    cursor_id_prefix = DELIVERY_PREFIX
    operation = Operation(
        "list_webhook_deliveries",
        ENDPOINT_TAGS,
        "The endpoint's delivery attempts, newest first",
        parameters=[OpenApiParameter("status", str, enum=[s.value for s in DeliveryStatus])],
        responses={
            200: _object("A list of webhook_delivery objects."),
            400: error_response("invalid_request (param status)."),
        },
    )

    def get_rows(self, request, endpoint_id: str):
        endpoint = _endpoint_or_404(request, endpoint_id)
        wanted = query_choice(request, "status", DeliveryStatus.values)
        return selectors.delivery_list(endpoint=endpoint, status=wanted)

    def payload(self, delivery) -> dict:
        return delivery_payload(delivery)


# ASCII digits only (str.isdigit takes "²", which int() refuses), at most 11 of them (the year 5138):
# twelve reach past the year 9999, the last a datetime holds.
_SECONDS = re.compile(r"[0-9]{1,11}")


def _created_gte(request):
    value = request.query_params.get("created[gte]")
    if value is None:
        return None
    if not _SECONDS.fullmatch(value):
        raise ApiError("invalid_request", "created[gte] must be a Unix time in seconds.", param="created[gte]")
    return datetime.fromtimestamp(int(value), UTC)


class EventListApi(ResourceListApi):
    """Events are kept 30 days; only the types the credential's scopes may read are listed."""

    required_scope = SCOPE
    cursor_id_prefix = EVENT_PREFIX
    operation = Operation(
        "list_events",
        EVENT_TAGS,
        "Events of the last 30 days in this mode, newest first, of the types your scopes allow",
        parameters=[
            OpenApiParameter("type", str, enum=list(types.EVENT_TYPES)),
            OpenApiParameter("created[gte]", int, description="Only events created at or after this Unix time."),
        ],
        responses={
            200: _object("A list of event objects."),
            400: error_response("invalid_request (param type or created[gte])."),
        },
    )

    def get_rows(self, request):
        type_name = query_choice(request, "type", types.EVENT_TYPES)
        return selectors.event_list(principal=request.auth, type_name=type_name, created_gte=_created_gte(request))

    def payload(self, event) -> dict:
        return event_payload(event)


class EventDetailApi(ResourceDetailApi):
    """One event of the last 30 days, in the credential's mode."""

    required_scope = SCOPE
    path_id = EVENT_ID
    operation = Operation("retrieve_event", EVENT_TAGS, "Read one event", responses={200: _object("The event.")})

    def get_row(self, request, event_id: str):
        return selectors.event_get(principal=request.auth, event_id=event_id)

    def payload(self, event) -> dict:
        return event_payload(event)


class EventRedeliverApi(_WebhookActionApi):
    operation = Operation(
        "redeliver_event",
        EVENT_TAGS,
        "Send an event to one endpoint now, once, outside the retry schedule",
        request=OpenApiTypes.OBJECT,
        responses={
            202: _object("The webhook_delivery, pending."),
            400: error_response("invalid_request (param endpoint): missing, disabled, or not subscribed to the type."),
            404: error_response("not_found (param endpoint): no such endpoint in this account and mode."),
        },
    )

    def post(self, request, event_id: str):
        """One more delivery of the event, now, to one of your endpoints subscribed to its type; the
        retries of its earlier deliveries keep their schedule."""
        event = EVENT_ID.found(selectors.event_get(principal=request.auth, event_id=event_id))
        data = _body(request)
        services.unknown_fields(data, {"endpoint"})
        endpoint_id = data.get("endpoint")
        if not isinstance(endpoint_id, str) or not endpoint_id:
            raise ApiError("invalid_request", "endpoint is required: a we_ id.", param="endpoint")
        endpoint = _endpoint_or_404(request, endpoint_id, param="endpoint")
        delivery = deliveries.redeliver(event=event, endpoint=endpoint)
        return Response(delivery_payload(delivery), status=status.HTTP_202_ACCEPTED)
