"""At most 2 SQL statements per billing answer on a cached credential (issue: "each answer at most 2 SQL
statements on a cached credential"), pinned: the credential costs none, the balance one, a ledger page one
(two with a cursor: the cursor's row, then the page), one transaction one."""

import pytest

from tests.billing.factories import ledger
from tests.support.resources import assert_statements, bearer_get
from tests.support.sql import DATES_ARE_PARAMETERS, second_answer_compiles_nothing, with_cursors

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows(user):
    return ledger(user, ["top_up", "call", "transcript", "refund", "call", "adjustment"] * 3)


@pytest.mark.parametrize(
    ("path", "query", "statements"),
    [
        ("/v1/balance", {}, 1),
        ("/v1/balance_transactions", {}, 1),
        ("/v1/balance_transactions", {"limit": 100}, 1),
        ("/v1/balance_transactions", {"type": "call"}, 1),
        ("/v1/balance_transactions", {"starting_after": 5}, 2),
        ("/v1/balance_transactions", {"ending_before": 5, "type": "call"}, 2),
        ("/v1/balance_transactions/{id}", {}, 1),
    ],
)
def test_statements_per_answer(rows, cached_secret, django_assert_num_queries, path, query, statements):
    query = {k: (rows[v].id if k in ("starting_after", "ending_before") else v) for k, v in query.items()}
    if "ending_before" in query and "type" in query:
        query["ending_before"] = next(r.id for r in rows if r.type == "call")
    path = path.format(id=rows[3].id)
    assert_statements(django_assert_num_queries, statements, path, cached_secret, **query)
    assert statements <= 2


def test_no_ledger_yet_costs_one_statement(cached_secret, django_assert_num_queries):
    with django_assert_num_queries(1):
        assert bearer_get("/v1/balance", cached_secret).json()["amount"] == 0


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ({}, {"limit": 10}),
        ({"type": "call"}, {"type": "refund"}),
        pytest.param({"starting_after": 5}, {"starting_after": 7}, marks=DATES_ARE_PARAMETERS),
        pytest.param(
            {"ending_before": 5, "type": "call"}, {"ending_before": 9, "type": "top_up"}, marks=DATES_ARE_PARAMETERS
        ),
    ],
)
def test_a_page_of_the_same_shape_compiles_no_sql_again(rows, cached_secret, first, again):
    second_answer_compiles_nothing(
        lambda params: bearer_get("/v1/balance_transactions", cached_secret, **with_cursors(params, rows)), first, again
    )
