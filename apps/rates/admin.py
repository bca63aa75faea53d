from django.contrib import admin

from .models import Rate


@admin.register(Rate)
class RateAdmin(admin.ModelAdmin):
    """The deck, to look up; it changes only by importing a file (manage.py import_rates)."""

    list_display = ("prefix", "country", "label", "per_minute", "currency", "first_seconds", "next_seconds")
    search_fields = ("^prefix", "=country", "label")
    list_per_page = 100

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
