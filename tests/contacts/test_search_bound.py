"""A search's cost does not grow with what the caller types: its words are counted after folding
(at most eight), and any number of them is the one-word search's statement, with the same text, so
the same plan (the plan itself: test_search_index.py::test_the_plan_of_many_words_is_the_plan_of_one)."""

from contextlib import contextmanager

import pytest
from django.db import connection
from django.test import Client

from apps.contacts import search
from tests.support.credentials import cached_key_secret
from tests.support.envelope import assert_error
from tests.support.mcp import McpClient, install_fake_tokens

from .factories import make_contacts

pytestmark = pytest.mark.django_db

FOLDS_TO_A = "\u249c"  # ⒜, "(a)" once folded
# Twenty-six different letters, each "(x)" once folded: a hundred characters of twenty-six words.
FOLDED_WORDS = "".join(chr(0x249C + n % 26) for n in range(100))
ASCII_1000 = " ".join(["abcdefgh"] * 111) + " x"


@pytest.fixture
def secret(store, user):
    make_contacts(user, ["Ana Kim", "Anton Abel", "Bo Lin", "Ana Bo Cy Di Ed Fa Gu Hu"])
    return cached_key_secret(user, ["contacts:read"])


@contextmanager
def statements():
    """The SQL text of every statement sent, before values are bound."""
    sent = []

    def record(execute, sql, params, many, context):
        sent.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        yield sent


def search_statements(secret, query) -> tuple[int, list[str]]:
    with statements() as sent:
        response = Client().get("/v1/contacts", {"query": query}, HTTP_AUTHORIZATION=f"Bearer {secret}")
    return response, sent


def test_the_folded_and_ascii_examples_are_what_they_claim():
    assert len(FOLDS_TO_A * 100) == 100 and len(FOLDED_WORDS) == 100 and len(ASCII_1000) == 1000
    assert search.parse_query(FOLDS_TO_A * 100).terms == ("a",)


@pytest.mark.parametrize(
    "query",
    [
        FOLDS_TO_A * 100,  # a hundred characters, one word once folded
        "a b c d e f g h",  # the most words a query may have
        "\u249c\u249d\u249e\u249f\u24a0\u24a1\u24a2\u24a3",  # as many, folded
    ],
)
def test_a_search_of_many_words_is_the_statement_of_one(secret, query):
    one_word, one_word_sql = search_statements(secret, "a")
    response, sql = search_statements(secret, query)
    assert one_word.status_code == response.status_code == 200
    assert response.json()["data"]
    assert len(sql) == len(one_word_sql) == 2  # the page, its phone numbers
    assert sql[0] == one_word_sql[0]  # the same text: the word count is a value, not part of the SQL


@pytest.mark.parametrize(
    "query", [FOLDED_WORDS, ASCII_1000, "a b c d e f g h i", "\u00bc \u00bd \u00be \u2155 a b c d e"]
)
def test_more_words_than_the_bound_or_characters_than_the_cap_are_refused_before_any_statement(secret, query):
    response, sql = search_statements(secret, query)
    error = assert_error(response, 400, "invalid_request", param="query")
    assert sql == []  # the credential is cached: nothing reaches the database
    assert "8 words" in error["message"] or "100 characters" in error["message"]


def test_the_words_are_counted_after_folding(secret):
    # Nine characters, nine words once folded; eight pass.
    response, _ = search_statements(secret, "\u249c\u249d\u249e\u249f\u24a0\u24a1\u24a2\u24a3\u24a4")
    error = assert_error(response, 400, "invalid_request", param="query")
    assert "9 words" in error["message"]
    assert search.parse_query("\u00bc").terms == ("1", "4")  # ¼: two words


def test_eight_words_still_find(secret, user):
    make_contacts(user, ["Maria de los Angeles Garcia Fernandez de la Torre"])
    response, _ = search_statements(secret, "maria de los angeles garcia fernandez la torre")
    assert [c["name"] for c in response.json()["data"]] == ["Maria de los Angeles Garcia Fernandez de la Torre"]


def test_the_tool_answers_too_many_words_with_a_sentence(user, settings):
    mcp = McpClient(install_fake_tokens(settings).issue(user, scopes=frozenset({"contacts:read"})))
    call = {"name": "svc_search_contacts", "arguments": {"query": FOLDED_WORDS}}
    with statements() as sent:
        response = mcp.request("tools/call", call)
    result = response.json()["result"]
    assert result["isError"] is True
    assert "at most 8 words" in result["content"][0]["text"]
    assert sent == []


def test_the_tool_searches_a_hundred_folded_characters_as_one_word(user, settings):
    make_contacts(user, ["Ana Kim"])
    mcp = McpClient(install_fake_tokens(settings).issue(user, scopes=frozenset({"contacts:read"})))
    call = {"name": "svc_search_contacts", "arguments": {"query": FOLDS_TO_A * 100}}
    result = mcp.request("tools/call", call).json()["result"]
    assert result["isError"] is False and [c["name"] for c in result["structuredContent"]["contacts"]] == ["Ana Kim"]


def test_the_openapi_description_says_the_bound(client):
    document = client.get("/v1/openapi.json").json()
    parameters = document["paths"]["/v1/contacts"]["get"]["parameters"]
    query = next(p for p in parameters if p["name"] == "query")
    assert "more than 8 different words" in query["description"]
