"""Staff find an account's calls and transcripts: by account email or id, call id or number."""

from django.contrib import admin
from django.utils import timezone

from .models import Call, Transcript
from .pricing import usage_of


class TranscriptInline(admin.StackedInline):
    model = Transcript
    extra = 0
    fields = ("id", "language", "summary", "action_items", "reference_numbers", "created", "livemode")
    readonly_fields = ("id",)


@admin.register(Call)
class CallAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "direction", "status", "from_number", "to_number", "created", "livemode")
    # "=": exact matches, so an id or a number is found by equality; the email by substring.
    search_fields = ("=id", "=user__id", "user__email", "=from_number", "=to_number", "=contact_id")
    list_filter = ("status", "direction", "livemode")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    ordering = ("-created", "-id")
    # Counting a table of millions on every search costs more than the page itself.
    show_full_result_count = False
    readonly_fields = ("id", "billed_duration", "amount")
    inlines = (TranscriptInline,)

    @admin.display(description="billed duration (s)")
    def billed_duration(self, call: Call):
        return usage_of(call, timezone.now()).billed_duration if call.pk else None

    @admin.display(description="amount (minor units, by the billing rule)")
    def amount(self, call: Call):
        return usage_of(call, timezone.now()).amount if call.pk else None


@admin.register(Transcript)
class TranscriptAdmin(admin.ModelAdmin):
    list_display = ("id", "call", "language", "created", "livemode")
    search_fields = ("=id", "=call__id", "=call__user__id", "call__user__email")
    list_filter = ("livemode", "language")
    raw_id_fields = ("call",)
    ordering = ("-created", "-id")
    show_full_result_count = False
