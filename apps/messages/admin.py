"""Staff find an account's messages by the account's email, the number or the sender.

Read-only: a message is what the carrier delivered; the admin never writes one.
"""

from django.contrib import admin

from .models import Message


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "livemode", "to_number", "from_sender", "created")
    list_filter = ("livemode",)
    search_fields = ("=id", "user__email", "=to_number", "=from_sender")
    # The body may hold a one-time code: shown on the message's page only, never in the list.
    # Every field, the id first: the inherited account fields come before it in _meta.
    readonly_fields = ["id", *(field.name for field in Message._meta.fields if field.name != "id")]
    list_select_related = ("user",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
