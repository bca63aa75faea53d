"""The webhooks routes, relative to /v1/."""

from django.urls import path

from . import apis

urlpatterns = [
    path(
        "webhook_endpoints",
        apis.read_write(apis.WebhookEndpointListApi, apis.WebhookEndpointCreateApi),
        name="v1-webhook-endpoints",
    ),
    path(
        "webhook_endpoints/<str:endpoint_id>",
        apis.read_write(apis.WebhookEndpointDetailApi, apis.WebhookEndpointChangeApi),
        name="v1-webhook-endpoint",
    ),
    path(
        "webhook_endpoints/<str:endpoint_id>/rotate_secret",
        apis.WebhookEndpointRotateApi.as_view(),
        name="v1-webhook-endpoint-rotate",
    ),
    path(
        "webhook_endpoints/<str:endpoint_id>/test",
        apis.WebhookEndpointTestApi.as_view(),
        name="v1-webhook-endpoint-test",
    ),
    path(
        "webhook_endpoints/<str:endpoint_id>/deliveries",
        apis.WebhookDeliveryListApi.as_view(),
        name="v1-webhook-deliveries",
    ),
    path("events", apis.EventListApi.as_view(), name="v1-events"),
    path("events/<str:event_id>", apis.EventDetailApi.as_view(), name="v1-event"),
    path("events/<str:event_id>/redeliver", apis.EventRedeliverApi.as_view(), name="v1-event-redeliver"),
]
