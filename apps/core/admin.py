"""What the admin may do with rows that change only through their own app's writer, or never."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """Shown to staff, never added, changed or deleted from the admin."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
