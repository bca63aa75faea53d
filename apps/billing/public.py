"""What the signed-in pages use of billing: the account's balance and ledger (read), and the
test balance's top-up (the one write they may ask for; money moves only through this app)."""

from .credit_test_mode import TEST_BALANCE_MAX, TopUpRefused, top_up_choices, top_up_test_balance
from .selectors import balance_get, balance_transaction_list
from .serializers import is_low

__all__ = [
    "TEST_BALANCE_MAX",
    "TopUpRefused",
    "balance_get",
    "balance_transaction_list",
    "is_low",
    "top_up_choices",
    "top_up_test_balance",
]
