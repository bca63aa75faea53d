"""The docs' request-limits table says who each budget counts from the budget's own key."""

import pytest

from apps.docs import selectors
from apps.ratelimit import budgets

ALL_BUDGETS = [value for value in vars(budgets).values() if isinstance(value, budgets.Budget)]


@pytest.mark.parametrize("budget", ALL_BUDGETS, ids=lambda budget: budget.name)
def test_every_budget_key_has_words_in_the_table(budget):
    # A row added for any budget renders: no key the table cannot name.
    assert selectors.COUNTED_PER[budget.key]


def test_a_connections_budget_and_its_users_are_listed_as_a_pair():
    rows = [(row.what, row.per, row.applies_to) for row in selectors.request_limits() if row.what == "Quotes"]
    assert rows == [
        ("Quotes", "connection or key", "POST /v1/quotes, svc_quote_call"),
        ("Quotes", "user", selectors.SAME),
    ]


def test_the_oauth_endpoints_budgets_answer_in_rfc_6749s_words():
    effects = {row.what: row.effect for row in selectors.request_limits()}
    assert effects["Token flood guard"] == "429 temporarily_unavailable"
    assert effects["Metadata"] == "429 rate_limited"
    assert effects["Failed bearer checks"] == "429 rate_limited instead of 401"
