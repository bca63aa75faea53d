from django.contrib import admin

from .models import Delivery, Event, WebhookEndpoint


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "livemode", "url", "enabled", "disabled_reason", "owner_kind", "created")
    list_filter = ("livemode", "enabled", "disabled_reason")
    exclude = ("secret_encrypted", "previous_secret_encrypted")
    readonly_fields = ("owner_kind", "owner_credential_id", "failing_since")


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "livemode", "type", "created")
    list_filter = ("livemode", "type")


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ("id", "endpoint", "event", "attempt", "status", "response_status", "scheduled_at")
    list_filter = ("status", "manual")
