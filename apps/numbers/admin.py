"""Staff find an account's numbers and caller IDs by the account's email or id, the number or its label.

A number's ``messages_opt_in`` is the account holder's own sharing switch
(docs/spec.md 5.13): it is shown here, never set here.
"""

from django import forms
from django.contrib import admin, messages

from apps.core.phones import canonical

from .models import CallerId, Number
from .services import caller_id_fill_country, caller_id_make_default, number_fill_country


class E164FormMixin:
    def clean_number(self):
        return canonical(self.cleaned_data["number"])  # ValidationError in E.164 terms


class NumberForm(E164FormMixin, forms.ModelForm):
    class Meta:
        model = Number
        fields = ("user", "livemode", "number", "type", "voice", "sms", "status", "label", "renews_at")


class CallerIdForm(E164FormMixin, forms.ModelForm):
    class Meta:
        model = CallerId
        fields = ("user", "livemode", "number", "verified_at", "is_default")


@admin.register(Number)
class NumberAdmin(admin.ModelAdmin):
    form = NumberForm
    list_display = ("number", "id", "user", "livemode", "country", "type", "status", "messages_opt_in", "renews_at")
    list_filter = ("livemode", "status", "type", "messages_opt_in", "country")
    search_fields = ("id", "number", "label", "user__email", "user__id")
    autocomplete_fields = ("user",)
    readonly_fields = ("id", "created", "country", "messages_opt_in")
    list_select_related = ("user",)

    def save_model(self, request, obj, form, change):
        number_fill_country(number=obj)
        super().save_model(request, obj, form, change)


@admin.register(CallerId)
class CallerIdAdmin(admin.ModelAdmin):
    form = CallerIdForm
    list_display = ("number", "id", "user", "livemode", "country", "is_default", "verified_at")
    list_filter = ("livemode", "is_default", "country")
    search_fields = ("id", "number", "user__email", "user__id")
    autocomplete_fields = ("user",)
    readonly_fields = ("id", "created", "country")
    list_select_related = ("user",)
    actions = ["make_default"]

    def save_model(self, request, obj, form, change):
        caller_id_fill_country(caller_id=obj)
        super().save_model(request, obj, form, change)

    @admin.action(description="Make the selected caller ID its account's default")
    def make_default(self, request, queryset):
        chosen = list(queryset[:2])
        if len(chosen) != 1:
            self.message_user(request, "Select exactly one caller ID.", messages.ERROR)
            return
        caller_id_make_default(caller_id=chosen[0])
        self.message_user(request, f"{chosen[0].number} is now the default caller ID.")
