"""At most 2 SQL statements per GET /v1/rates answer on a cached credential, pinned: the credential
costs none, a number's longest-prefix match one (every prefix with IN), a country's estimate one."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.support.resources import bearer_get
from tests.support.sql import second_answer_compiles_nothing

pytestmark = pytest.mark.django_db


def get(to, secret):
    return bearer_get("/v1/rates", secret, to=to)


@pytest.mark.parametrize(
    ("to", "status"),
    [
        ("+4915112345678", 200),
        ("+18765551234", 200),
        ("Germany", 200),
        ("Allemagne", 200),
        ("+8613812345678", 404),
        ("Japan", 404),
        ("Korea", 400),
        ("Narnia", 400),
    ],
)
def test_at_most_two_statements_per_answer(deck, cached_secret, django_assert_max_num_queries, to, status):
    get("DE", cached_secret)  # the country names are built once per process, not per request
    with django_assert_max_num_queries(2):
        response = get(to, cached_secret)
    assert response.status_code == status, response.content


def test_a_number_is_one_indexed_statement_without_like(deck, cached_secret):
    with CaptureQueriesContext(connection) as captured:
        assert get("+4915112345678", cached_secret).status_code == 200
    assert len(captured.captured_queries) == 1
    sql = captured.captured_queries[0]["sql"].upper()
    assert " IN (" in sql and "LIKE" not in sql and "LIMIT 1" in sql


def test_a_number_of_the_same_length_compiles_no_sql_again(deck, cached_secret):
    second_answer_compiles_nothing(lambda to: get(to, cached_secret), "+4915112345678", "+4915198765432")
