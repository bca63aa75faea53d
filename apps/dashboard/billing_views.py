"""The dashboard's billing page: the address every ``billing_url`` gives out.

Adding credit happens in the telephony app itself; this service shows the
balance and its history so that an assistant's "top up at billing_url" lands on
a page that answers the question.
"""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from apps.billing import selectors
from apps.billing.serializers import is_low
from apps.core.money import display
from apps.credentials.principal import session_principal

RECENT = 20


@never_cache
@require_GET
@login_required
def billing_page(request):
    # The same selectors as the API, for the account's live mode.
    principal = session_principal(request.user, livemode=True)
    balance = selectors.balance_get(principal=principal)
    rows = list(selectors.balance_transaction_list(principal=principal).queryset().order_by("-created", "-id")[:RECENT])
    return render(
        request,
        "settings/billing.html",
        {
            "balance_display": display(balance.amount, balance.currency),
            "low_balance": is_low(balance.amount),
            "transactions": [
                {
                    "created": row.created,
                    "type": row.get_type_display(),
                    "description": row.description,
                    "amount": display(row.amount, row.currency),
                    "ending_balance": display(row.ending_balance, row.currency),
                }
                for row in rows
            ],
        },
    )
