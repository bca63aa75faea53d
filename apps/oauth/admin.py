"""Staff administration of OAuth clients.

DOT registers the swapped Application model with the class named by its
``APPLICATION_ADMIN_CLASS`` setting, which points here; this module therefore
registers nothing itself. Every field is read-only: a client's metadata comes
from its registration or its metadata document, and the only changes staff
make (disable, enable, verified partner) go through the services as actions.
"""

from django.contrib import admin, messages
from django.utils import timezone

from .registration.services import client_disable, client_enable, client_set_verified_partner


class DisabledFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return (("active", "Active"), ("disabled", "Disabled"))

    def queryset(self, request, queryset):
        if self.value() == "active":
            return queryset.filter(disabled_at__isnull=True)
        if self.value() == "disabled":
            return queryset.filter(disabled_at__isnull=False)
        return queryset


class ApplicationAdmin(admin.ModelAdmin):
    list_display = ("display_name", "client_id", "registration_kind", "status", "last_used_at", "created")
    list_filter = (DisabledFilter, "registration_source", "verified_partner", "application_type")
    search_fields = ("name", "client_id", "redirect_uris", "client_uri")
    ordering = ("-created",)
    show_full_result_count = False
    list_per_page = 50
    fields = (
        "name",
        "client_id",
        "registration_kind",
        "status",
        "disabled_at",
        "verified_partner",
        "registration_source",
        "application_type",
        "redirect_uris",
        "client_uri",
        "client_type",
        "authorization_grant_type",
        "cimd_expires_at",
        "last_used_at",
        "created",
        "updated",
    )
    readonly_fields = fields
    actions = ("disable_clients", "enable_clients", "mark_verified_partner", "unmark_verified_partner")

    def has_add_permission(self, request):
        # Clients exist only through registration or a metadata document, which validate them.
        return False

    @admin.display(description="name", ordering="name")
    def display_name(self, obj):
        return obj.name or "(unnamed)"

    @admin.display(description="registration")
    def registration_kind(self, obj):
        return obj.registration_kind

    @admin.display(description="status")
    def status(self, obj):
        return "disabled" if obj.is_disabled else "active"

    def _apply(self, request, queryset, change, past_tense):
        count = 0
        for client in queryset:
            change(client)
            # Staff decisions about a client stay in its admin history (who, when, what).
            self.log_change(request, client, f"{past_tense.capitalize()} by action.")
            count += 1
        self.message_user(request, f"{count} client(s) {past_tense}.", messages.SUCCESS)

    @admin.action(description="Disable selected clients", permissions=["change"])
    def disable_clients(self, request, queryset):
        now = timezone.now()
        self._apply(request, queryset, lambda c: client_disable(client=c, now=now), "disabled")

    @admin.action(description="Enable selected clients", permissions=["change"])
    def enable_clients(self, request, queryset):
        self._apply(request, queryset, lambda c: client_enable(client=c), "enabled")

    @admin.action(description="Mark selected clients as verified partners", permissions=["change"])
    def mark_verified_partner(self, request, queryset):
        self._apply(
            request, queryset, lambda c: client_set_verified_partner(client=c, verified=True), "marked verified"
        )

    @admin.action(description="Remove verified-partner mark", permissions=["change"])
    def unmark_verified_partner(self, request, queryset):
        self._apply(request, queryset, lambda c: client_set_verified_partner(client=c, verified=False), "unmarked")
