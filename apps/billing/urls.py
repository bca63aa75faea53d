"""The billing routes, relative to /v1/."""

from django.urls import path

from . import apis

urlpatterns = [
    path("balance", apis.BalanceApi.as_view(), name="v1-balance"),
    path("balance_transactions", apis.BalanceTransactionListApi.as_view(), name="v1-balance-transactions"),
    path(
        "balance_transactions/<str:balance_transaction_id>",
        apis.BalanceTransactionDetailApi.as_view(),
        name="v1-balance-transaction",
    ),
]
