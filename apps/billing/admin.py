"""The ledger in the admin: read-only. A correction is a new ``adjustment`` row, made through the service."""

from django import forms
from django.contrib import admin

from apps.core.admin import ReadOnlyAdmin

from .models import Balance, BalanceTransaction, TransactionType
from .services import ledger_append


@admin.register(Balance)
class BalanceAdmin(ReadOnlyAdmin):
    """Balances move only with the ledger: nothing here is editable."""

    list_display = ("user", "livemode", "amount", "currency", "updated")
    list_filter = ("livemode",)
    search_fields = ("user__email", "user__id")
    list_select_related = ("user",)


class AdjustmentForm(forms.ModelForm):
    """The one row staff may add: an adjustment, appended by ``ledger_append`` like any other row."""

    livemode = forms.BooleanField(required=False, initial=True, label="Live mode", help_text="Off for test mode.")
    amount = forms.IntegerField(
        help_text=(
            "Signed, in minor units of the account currency (cents for usd): 250 credits $2.50, -250 takes it off. "
            "Not 0."
        )
    )
    description = forms.CharField(
        max_length=255, help_text="Why, as the account holder will read it (e.g. Correction: call billed twice)."
    )

    class Meta:
        model = BalanceTransaction
        fields = ("user", "livemode", "amount", "description")

    def clean_amount(self):
        amount = self.cleaned_data["amount"]
        if amount == 0:
            raise forms.ValidationError("An adjustment of 0 changes nothing.")
        return amount

    def _post_clean(self):
        # The row is built by the service, not from the form (the model's own checks would ask for
        # the fields it computes: created, currency, ending_balance).
        pass


@admin.register(BalanceTransaction)
class BalanceTransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "user", "livemode", "created", "type", "amount", "currency", "ending_balance", "source")
    list_filter = ("livemode", "type")
    search_fields = ("id", "user__email", "user__id", "source")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    show_full_result_count = False  # a ledger grows large; skip the second COUNT(*)
    readonly_fields = [f.name for f in BalanceTransaction._meta.fields]

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = AdjustmentForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj is not None else ()

    def get_fields(self, request, obj=None):
        if obj is None:
            return list(AdjustmentForm.Meta.fields)
        return super().get_fields(request, obj)

    def has_add_permission(self, request):
        return admin.ModelAdmin.has_add_permission(self, request)  # the adjustment form

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        row = ledger_append(
            user=data["user"],
            livemode=data["livemode"],
            amount=data["amount"],
            type=TransactionType.ADJUSTMENT,
            source=None,
            description=data["description"],
        )
        # The admin logs and redirects with the object it was given: make it the appended row.
        obj.__dict__.update({f.attname: getattr(row, f.attname) for f in BalanceTransaction._meta.concrete_fields})
        obj._state.adding = False
