"""GET /v1/balance, GET /v1/balance_transactions and /{id} (docs/design.md, Phase 2). Scope credits:read."""

from drf_spectacular.utils import OpenApiParameter

from apps.api_v1.public import (
    Operation,
    PathId,
    ResourceDetailApi,
    ResourceListApi,
    cursor_parameters,
    error_response,
    query_choice,
)

from . import selectors
from .models import TXN_PREFIX, TransactionType
from .serializers import BalanceSerializer, BalanceTransactionSerializer

SCOPE = "credits:read"
TAGS = ["Balance"]
TXN_ID = PathId("balance_transaction_id", TXN_PREFIX, "The transaction's id, txn_...")


TYPE_PARAMETER = OpenApiParameter(
    "type",
    str,
    enum=TransactionType.values,
    description="Only transactions of this type. Any other value is 400 invalid_request (param type).",
)
CURSOR_PARAMETERS = cursor_parameters(
    prefix="txn_",
    format="balance-transaction-id",
    objects="transactions",
    note="Any of your transactions in this mode is a cursor, whatever its type.",
)


class BalanceApi(ResourceDetailApi):
    """The credit balance of the account in the credential's mode."""

    required_scope = SCOPE
    serializer_class = BalanceSerializer
    operation = Operation(
        "retrieve_balance",
        TAGS,
        "Your credit balance",
        description=(
            "The balance of the account in the credential's mode (test keys see the test-mode balance). "
            "An account that never had a transaction has a balance of 0."
        ),
    )

    def get_row(self, request):
        return selectors.balance_get(principal=request.auth)


class BalanceTransactionListApi(ResourceListApi):
    """The ledger, newest first."""

    required_scope = SCOPE
    cursor_id_prefix = TXN_PREFIX
    serializer_class = BalanceTransactionSerializer
    operation = Operation(
        "list_balance_transactions",
        TAGS,
        "List your balance transactions, newest first",
        description=(
            "Every movement of the balance: top-ups and refunds (positive), calls, number rentals and "
            "transcripts (negative), adjustments (either). Each carries the balance after it."
        ),
        parameters=[TYPE_PARAMETER, *CURSOR_PARAMETERS],
        responses={400: error_response("invalid_request (param type): unknown type.")},
    )

    def get_rows(self, request):
        kind = query_choice(request, "type", TransactionType.values)
        return selectors.balance_transaction_list(principal=request.auth, type=kind)


class BalanceTransactionDetailApi(ResourceDetailApi):
    """One transaction of the ledger."""

    required_scope = SCOPE
    path_id = TXN_ID
    serializer_class = BalanceTransactionSerializer
    operation = Operation("retrieve_balance_transaction", TAGS, "Read one balance transaction")

    def get_row(self, request, balance_transaction_id: str):
        return selectors.balance_transaction_get(principal=request.auth, transaction_id=balance_transaction_id)
