from django.contrib import admin

from .models import ApiKey


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "user", "livemode", "created", "expires_at", "revoked_at", "last_used_at")
    search_fields = ("id", "name", "user__email")
    list_filter = ("livemode",)
    readonly_fields = [f.name for f in ApiKey._meta.fields]

    def has_add_permission(self, request):
        return False
