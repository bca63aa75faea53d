from django.contrib import admin

from apps.core.admin import ReadOnlyAdmin

from .models import Rate


@admin.register(Rate)
class RateAdmin(ReadOnlyAdmin):
    """The deck, to look up; it changes only by importing a file (manage.py import_rates)."""

    list_display = ("prefix", "country", "label", "per_minute", "currency", "first_seconds", "next_seconds")
    search_fields = ("^prefix", "=country", "label")
    list_per_page = 100
