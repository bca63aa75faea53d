"""Staff find an account's contacts by the account's email or id, the contact's name or one of its numbers."""

from django import forms
from django.contrib import admin

from apps.core.phones import canonical

from .models import MAX_PHONE_NUMBERS, Contact, ContactPhoneNumber
from .services import contact_name_clean, contact_reindex


class PhoneNumberForm(forms.ModelForm):
    class Meta:
        model = ContactPhoneNumber
        fields = ("position", "number", "label")

    def clean_number(self):
        return canonical(self.cleaned_data["number"])  # ValidationError in E.164 terms


class PhoneNumberInline(admin.TabularInline):
    model = ContactPhoneNumber
    form = PhoneNumberForm
    extra = 1
    max_num = MAX_PHONE_NUMBERS
    readonly_fields = ("country",)
    fields = ("position", "number", "label", "country")


class ContactForm(forms.ModelForm):
    class Meta:
        model = Contact
        fields = ("user", "livemode", "name")

    def clean_name(self):
        return contact_name_clean(self.cleaned_data["name"])


@admin.register(Contact)
class ContactAdmin(admin.ModelAdmin):
    form = ContactForm
    inlines = [PhoneNumberInline]
    list_display = ("name", "id", "user", "livemode", "created")
    list_filter = ("livemode",)
    search_fields = ("id", "name", "user__email", "user__id", "phone_numbers__number")
    autocomplete_fields = ("user",)
    readonly_fields = ("id", "created")
    fields = ("id", "user", "livemode", "name", "created")
    list_select_related = ("user",)

    def get_readonly_fields(self, request, obj=None):
        # A contact stays in its account and mode: its search terms are kept under both.
        return (*self.readonly_fields, "user", "livemode") if obj else self.readonly_fields

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # Name and numbers are saved: derive the sort key, countries and search terms from them.
        contact_reindex(contact=form.instance)
