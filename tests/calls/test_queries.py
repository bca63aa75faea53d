"""At most 3 SQL statements per answer on a cached credential (calls page, detail, expansions), and one
more for expand[]=contact.

The credential is made cached first (tests/api_v1/test_credential_cache.py: a
user's first fill only creates the user's epoch), so every statement counted is
the answer's own: the switch read, the cursor's row, the page (transcript joined),
and the page's contacts with their numbers (one statement, whatever the page's size).
"""

import pytest
from django.test import Client

from tests.calls.factories import CallFactory, TranscriptFactory, make_contact
from tests.support.credentials import cached_key_secret
from tests.support.sql import DATES_ARE_PARAMETERS, second_answer_compiles_nothing, with_cursors

pytestmark = pytest.mark.django_db

MAX_STATEMENTS = 3


def most_statements(params) -> int:
    # The whole contact (its numbers too) is the contacts app's read: one statement of its own.
    return MAX_STATEMENTS + ("contact" in params.get("expand[]", []))


@pytest.fixture
def secret(store, owner, summaries_on):
    return cached_key_secret(owner, ["calls:read", "contacts:read", "transcripts:read"])


@pytest.fixture
def calls(owner):
    contact = make_contact(owner)
    made = [CallFactory(user=owner, contact_id=contact.id) for _ in range(12)]
    for call in made[::2]:
        TranscriptFactory(call=call)
    return sorted(made, key=lambda c: (c.created, c.id), reverse=True)


def get(secret, path, params=None):
    return Client().get(path, params or {}, HTTP_AUTHORIZATION=f"Bearer {secret}")


def test_the_credential_is_cached(secret, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert get(secret, "/v1/me").status_code == 200


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"limit": 100},
        {"direction": "outbound", "status": "completed"},
        {"expand[]": ["transcript"]},
        {"expand[]": ["contact"]},
        {"expand[]": ["transcript", "contact"]},
        {"starting_after": None},
        {"ending_before": None, "expand[]": ["transcript", "contact"]},
        {"starting_after": None, "direction": "outbound", "expand[]": ["transcript", "contact"]},
    ],
)
def test_a_calls_page_is_at_most_3_statements(secret, calls, params, django_assert_max_num_queries):
    params = {k: (calls[3].id if v is None else v) for k, v in params.items()}
    with django_assert_max_num_queries(most_statements(params)):
        response = get(secret, "/v1/calls", params)
    assert response.status_code == 200, response.content
    assert response.json()["data"]


@pytest.mark.parametrize("expand", [[], ["transcript"], ["contact"], ["transcript", "contact"]])
def test_a_call_is_at_most_3_statements(secret, calls, expand, django_assert_max_num_queries):
    with django_assert_max_num_queries(most_statements({"expand[]": expand})):
        response = get(secret, f"/v1/calls/{calls[0].id}", {"expand[]": expand})
    assert response.status_code == 200, response.content


def test_the_page_itself_is_one_statement(secret, calls, django_assert_num_queries):
    # Unexpanded and without a cursor: the page only (the transcript id is a LEFT JOIN of it).
    with django_assert_num_queries(1):
        assert get(secret, "/v1/calls", {"limit": 100}).status_code == 200
    # Both expansions: the switch, the page with the transcript in it, then the page's contacts.
    with django_assert_num_queries(3):
        assert get(secret, "/v1/calls", {"limit": 100, "expand[]": ["transcript", "contact"]}).status_code == 200


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ({}, {"limit": 10}),
        ({"direction": "outbound", "expand[]": ["contact"]}, {"direction": "inbound", "expand[]": ["contact"]}),
        pytest.param({"starting_after": 3}, {"starting_after": 5}, marks=DATES_ARE_PARAMETERS),
        pytest.param(
            {"ending_before": 3, "status": "completed"},
            {"ending_before": 6, "status": "failed"},
            marks=DATES_ARE_PARAMETERS,
        ),
    ],
)
def test_a_page_of_the_same_shape_compiles_no_sql_again(secret, calls, first, again):
    second_answer_compiles_nothing(lambda params: get(secret, "/v1/calls", with_cursors(params, calls)), first, again)
