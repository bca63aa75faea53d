from django.contrib import admin

from apps.core.admin import ReadOnlyAdmin

from .models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    """Read-only: an audit trail that operators could edit would prove nothing."""

    list_display = (
        "id",
        "created",
        "event_type",
        "user",
        "actor_type",
        "actor_id",
        "client_id",
        "key_id",
        "ip_address",
    )
    list_filter = ("event_type", "actor_type")
    search_fields = ("id", "user__email", "user__id", "actor_id", "client_id", "key_id", "request_id", "ip_address")
    date_hierarchy = "created"
    list_select_related = ("user",)
    readonly_fields = [f.name for f in AuditEvent._meta.fields]
