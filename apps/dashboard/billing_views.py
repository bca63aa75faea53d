"""The dashboard's billing page: the address every ``billing_url`` gives out.

It says truthfully where credit comes from and how it is spent, shows the live balance and
its history and, for trying tools in test mode, the test balance with a top-up form. Money
moves only through the billing app (``apps.billing.public``); this page never writes a row.
"""

import secrets

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from apps.billing.public import (
    TopUpRefused,
    balance_get,
    balance_transaction_list,
    is_low,
    top_up_choices,
    top_up_test_balance,
)
from apps.core.money import display
from apps.credentials.principal import session_principal

RECENT = 20
RECENT_TEST = 5


def _rows(principal, limit: int) -> list[dict]:
    rows = balance_transaction_list(principal=principal).queryset().order_by("-created", "-id")[:limit]
    return [
        {
            "created": row.created,
            "type": row.get_type_display(),
            "description": row.description,
            "amount": display(row.amount, row.currency),
            "ending_balance": display(row.ending_balance, row.currency),
        }
        for row in rows
    ]


@never_cache
@require_GET
@login_required
def billing_page(request):
    # The same selectors as the API: live mode above, test mode in its own section.
    live = session_principal(request.user, livemode=True)
    test = session_principal(request.user, livemode=False)
    balance, test_balance = balance_get(principal=live), balance_get(principal=test)
    return render(
        request,
        "settings/billing.html",
        {
            "balance_display": display(balance.amount, balance.currency),
            "low_balance": is_low(balance.amount),
            "transactions": _rows(live, RECENT),
            "test_balance_display": display(test_balance.amount, test_balance.currency),
            "test_transactions": _rows(test, RECENT_TEST),
            "top_up_choices": [(amount, display(amount, test_balance.currency)) for amount in top_up_choices()],
            # A fresh id per form shown: submitting the same form twice credits once.
            "top_up_request_id": secrets.token_urlsafe(18),
        },
    )


@never_cache
@require_POST
@login_required
def test_top_up_form(request):
    """The test balance's top-up: a plain form POST (CSRF by the middleware) back to the page."""
    try:
        amount = int(request.POST.get("amount", ""))
    except ValueError:
        amount = 0
    try:
        row, written = top_up_test_balance(
            user=request.user, amount=amount, request_id=request.POST.get("request_id", "")
        )
    except TopUpRefused as refused:
        messages.error(request, str(refused))
    else:
        added = display(row.amount, row.currency)
        if written:
            messages.success(request, f"Added {added} to your test balance.")
        else:
            messages.info(request, f"That form was already sent: {added} was added once.")
    return redirect("billing-page")
