"""OAuth core routes: exact paths, no trailing-slash variants (a POST is never redirected)."""

from django.urls import path

from .token import views as token
from .views import authorize, consent

urlpatterns = [
    path("oauth/authorize", authorize.authorize, name="oauth-authorize"),
    path("oauth/token", token.TokenView.as_view(), name="oauth-token"),
    path("oauth/revoke", token.revoke, name="oauth-revoke"),
    path("oauth/consent", consent.consent_page, name="oauth-consent"),
    path("api/oauth/transactions/<str:transaction_id>", consent.TransactionApi.as_view(), name="oauth-transaction"),
    path(
        "api/oauth/transactions/<str:transaction_id>/decision",
        consent.TransactionDecisionApi.as_view(),
        name="oauth-transaction-decision",
    ),
]
