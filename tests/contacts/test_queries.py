"""At most 3 SQL statements per contacts answer on a cached credential, pinned: the credential costs
none, a page one plus one for its phone numbers, a cursor one more (its place in name order); a
search is the same page statement (the term lookups are subqueries of it)."""

import pytest

from tests.support.mcp import McpClient, install_fake_tokens
from tests.support.resources import assert_statements, bearer_get
from tests.support.sql import second_answer_compiles_nothing, with_cursors

from .factories import make_contact, make_contacts

pytestmark = pytest.mark.django_db


@pytest.fixture
def contacts(user):
    made = make_contacts(user, [f"Ana {n:02d}" for n in range(12)])
    made.append(make_contact(user, "José Álvarez", [("+34612345678", "mobile"), ("+14155550100", "work")]))
    return made


@pytest.mark.parametrize(
    ("path", "query", "statements"),
    [
        ("/v1/contacts", {}, 2),
        ("/v1/contacts", {"limit": 100}, 2),
        ("/v1/contacts", {"query": "ana"}, 2),
        ("/v1/contacts", {"query": "jose alv"}, 2),
        ("/v1/contacts", {"query": "+1 415 555"}, 2),
        ("/v1/contacts", {"starting_after": 3}, 3),
        ("/v1/contacts", {"ending_before": 5, "query": "ana"}, 3),
        ("/v1/contacts/{id}", {}, 2),
        ("/v1/contacts", {"query": "zzz"}, 1),  # no match: no phone numbers to read
        ("/v1/contacts", {"query": "!!"}, 0),  # nothing to search for
    ],
)
def test_statements_per_answer(contacts, cached_secret, django_assert_num_queries, path, query, statements):
    query = {k: (contacts[v].id if k in ("starting_after", "ending_before") else v) for k, v in query.items()}
    path = path.format(id=contacts[-1].id)
    assert_statements(django_assert_num_queries, statements, path, cached_secret, **query)
    assert statements <= 3


def test_the_tool_costs_two_statements(contacts, user, settings, django_assert_num_queries):
    # The stand-in resolver answers from memory: what is counted is the tool's own work.
    mcp = McpClient(install_fake_tokens(settings).issue(user, scopes=frozenset({"contacts:read"})))
    call = {"name": "svc_search_contacts", "arguments": {"query": "ana", "limit": 5}}
    with django_assert_num_queries(2):  # the page of matches, their numbers
        response = mcp.request("tools/call", call)
    assert len(response.json()["result"]["structuredContent"]["contacts"]) == 5


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ({}, {"limit": 10}),
        ({"query": "ana"}, {"query": "jos"}),
        ({"query": "jose alv"}, {"query": "ana 01"}),  # one contact found each time
        ({"query": "+1 415"}, {"query": "+34 612"}),
        # The phone numbers' statement is compiled per page size: both pages are full.
        ({"starting_after": 3, "limit": 2}, {"starting_after": 5, "limit": 2}),
        ({"ending_before": 5, "query": "ana", "limit": 2}, {"ending_before": 8, "query": "an", "limit": 2}),
    ],
)
def test_a_page_of_the_same_shape_compiles_no_sql_again(contacts, cached_secret, first, again):
    response = second_answer_compiles_nothing(
        lambda params: bearer_get("/v1/contacts", cached_secret, **with_cursors(params, contacts)), first, again
    )
    assert response.json()["data"]


def test_the_word_count_is_not_part_of_the_shape(contacts, cached_secret):
    # One statement for any number of words: a caller cycling through word counts makes nothing new
    # to compile or keep.
    response = second_answer_compiles_nothing(
        lambda params: bearer_get("/v1/contacts", cached_secret, **params),
        {"query": "ana"},
        {"query": "ana 0 1 2 3 4 5 6"},
    )
    assert response.status_code == 200
