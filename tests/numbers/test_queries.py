"""At most 3 SQL statements per numbers answer on a cached credential, pinned: the credential costs
none, a page or a number one, a cursor one more (its row)."""

import pytest

from tests.support.mcp import McpClient, install_fake_tokens
from tests.support.resources import assert_statements

from .factories import make_caller_id, make_numbers

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows(user):
    numbers = make_numbers(user, 6)
    caller_ids = [make_caller_id(user, f"+1415555010{n}", default=n == 0) for n in range(4)]
    return {"num": numbers, "cid": caller_ids}


@pytest.mark.parametrize(
    ("path", "query", "statements"),
    [
        ("/v1/numbers", {}, 1),
        ("/v1/numbers", {"limit": 100}, 1),
        ("/v1/numbers", {"starting_after": ("num", 4)}, 2),
        ("/v1/numbers", {"ending_before": ("num", 1)}, 2),
        ("/v1/numbers/{id}", {}, 1),
        ("/v1/caller_ids", {}, 1),
        ("/v1/caller_ids", {"starting_after": ("cid", 2)}, 2),
    ],
)
def test_statements_per_answer(rows, cached_secret, django_assert_num_queries, path, query, statements):
    query = {k: (rows[v[0]][v[1]].id if isinstance(v, tuple) else v) for k, v in query.items()}
    path = path.format(id=rows["num"][2].id)
    assert_statements(django_assert_num_queries, statements, path, cached_secret, **query)
    assert statements <= 3


def test_the_tool_costs_two_statements(rows, user, settings, django_assert_num_queries):
    # The stand-in resolver answers from memory: what is counted is the tool's own work.
    mcp = McpClient(install_fake_tokens(settings).issue(user, scopes=frozenset({"numbers:read"})))
    with django_assert_num_queries(2):  # the active numbers, the caller IDs
        response = mcp.request("tools/call", {"name": "svc_list_numbers", "arguments": {}})
    assert len(response.json()["result"]["structuredContent"]["numbers"]) == 6
