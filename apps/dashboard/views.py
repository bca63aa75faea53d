"""The signed-in home page."""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from apps.accounts.selectors import sharing_get
from apps.billing.public import balance_get
from apps.core.money import display
from apps.credentials.principal import session_principal
from apps.numbers.selectors import number_list_for_sharing
from apps.oauth.connections.selectors import connection_list


@login_required
def home(request):
    """Where a signed-in user lands: what apps can see of the account (each with the page that
    changes it), how to connect an assistant, and where everything is."""
    user = request.user
    # Connected apps act in live mode only: the live balance and the live numbers.
    balance = balance_get(principal=session_principal(user, livemode=True))
    return render(
        request,
        "accounts/home.html",
        {
            "mcp_url": f"{settings.BASE_URL}/mcp",
            "api_base": f"{settings.BASE_URL}/v1",
            "docs_url": settings.DOCS_URL,
            "docs_mcp_url": f"{settings.DOCS_URL}/mcp",
            "balance_display": display(balance.amount, balance.currency),
            "numbers": number_list_for_sharing(user=user, livemode=True),
            "sharing": sharing_get(user=user),
            "connections": connection_list(user=user),
        },
    )
