"""GET /v1/balance_transactions and /{id} (docs/design.md, Phase 2): shape, order, pages both ways, the type filter,
every error with its param, modes and accounts apart."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.billing.factories import append, ledger
from tests.billing.shapes import BALANCE_TRANSACTION_FIELDS
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory, make_api_key

pytestmark = pytest.mark.django_db

TYPES = ["top_up", "call", "transcript", "number_rental", "refund", "adjustment"]
LIST = "/v1/balance_transactions"


def ids(response):
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["data"]]


@pytest.fixture
def rows(user):
    """25 rows a minute apart, oldest first, every type present."""
    return ledger(user, (TYPES * 5)[:25], start=timezone.now() - timedelta(days=2))


def test_a_transaction_object(user, live_secret, get):
    when = timezone.now().replace(microsecond=0) - timedelta(hours=1)
    append(user, amount=2000, created=when - timedelta(minutes=1))
    row = append(user, type="call", amount=-45, source="call_ABCdef0123456789ghijKLMN", created=when)
    body = get(f"{LIST}/{row.id}", live_secret).json()
    assert body == {
        "id": row.id,
        "object": "balance_transaction",
        "amount": -45,
        "currency": "usd",
        "type": "call",
        "source": "call_ABCdef0123456789ghijKLMN",
        "description": "Call to +44 20 7946 0018, 3 min",
        "ending_balance": 1955,
        "created": int(when.timestamp()),
        "livemode": True,
    }


def test_top_ups_and_adjustments_have_a_null_source(user, live_secret, get):
    ledger(user, ["top_up", "adjustment"])
    assert [r["source"] for r in get(LIST, live_secret).json()["data"]] == [None, None]


def test_the_list_object_newest_first(user, rows, live_secret, get):
    response = get(LIST, live_secret)
    body = response.json()
    assert set(body) == {"object", "data", "has_more", "url"}
    assert body["object"] == "list"
    assert body["url"] == LIST
    assert body["has_more"] is True
    assert len(body["data"]) == 10
    assert all(set(row) == BALANCE_TRANSACTION_FIELDS for row in body["data"])
    assert ids(response) == [r.id for r in rows[::-1][:10]]
    created = [row["created"] for row in body["data"]]
    assert created == sorted(created, reverse=True)


def test_the_chain_reads_from_the_list(user, rows, live_secret, get):
    data = get(LIST, live_secret, limit=100).json()["data"]
    oldest_first = data[::-1]
    running = 0
    for row in oldest_first:
        running += row["amount"]
        assert row["ending_balance"] == running
    assert get("/v1/balance", live_secret).json()["amount"] == running == data[0]["ending_balance"]


def test_pages_forward_with_starting_after(rows, live_secret, get):
    newest_first = [r.id for r in rows[::-1]]
    seen, cursor, pages = [], None, 0
    while True:
        query = {"limit": 10, **({"starting_after": cursor} if cursor else {})}
        response = get(LIST, live_secret, **query)
        page = ids(response)
        seen += page
        pages += 1
        if not response.json()["has_more"]:
            break
        cursor = page[-1]
    assert seen == newest_first
    assert pages == 3


def test_pages_back_with_ending_before(rows, live_secret, get):
    newest_first = [r.id for r in rows[::-1]]
    response = get(LIST, live_secret, limit=10, ending_before=newest_first[20])
    assert ids(response) == newest_first[10:20]
    assert response.json()["has_more"] is True
    response = get(LIST, live_secret, limit=10, ending_before=newest_first[10])
    assert ids(response) == newest_first[:10]
    assert response.json()["has_more"] is False


def test_the_last_page_has_no_more(rows, live_secret, get):
    response = get(LIST, live_secret, limit=5, starting_after=rows[4].id)
    assert ids(response) == [r.id for r in rows[3::-1]]
    assert response.json()["has_more"] is False


@pytest.mark.parametrize("kind", TYPES)
def test_the_type_filter(rows, live_secret, get, kind):
    response = get(LIST, live_secret, type=kind, limit=100)
    expected = [r.id for r in rows[::-1] if r.type == kind]
    assert expected and ids(response) == expected
    assert {row["type"] for row in response.json()["data"]} == {kind}


def test_the_type_filter_pages(rows, live_secret, get):
    calls = [r.id for r in rows[::-1] if r.type == "call"]
    first = get(LIST, live_secret, type="call", limit=2)
    assert ids(first) == calls[:2] and first.json()["has_more"] is True
    second = get(LIST, live_secret, type="call", limit=2, starting_after=calls[1])
    assert ids(second) == calls[2:4]
    back = get(LIST, live_secret, type="call", limit=2, ending_before=calls[2])
    assert ids(back) == calls[:2]


def test_a_cursor_the_type_filter_leaves_out_still_marks_a_position(rows, live_secret, get):
    # docs/spec.md 7.2 refuses a cursor that is not the caller's object, not one the filter leaves out.
    newest_first = rows[::-1]
    top_up = next(r for r in newest_first[3:] if r.type == "top_up")
    position = newest_first.index(top_up)
    older_calls = [r.id for r in newest_first[position + 1 :] if r.type == "call"]
    newer_calls = [r.id for r in newest_first[:position] if r.type == "call"]
    assert older_calls and newer_calls
    assert ids(get(LIST, live_secret, type="call", starting_after=top_up.id, limit=100)) == older_calls
    assert ids(get(LIST, live_secret, type="call", ending_before=top_up.id, limit=100)) == newer_calls


@pytest.mark.parametrize("value", ["", "topup", "TOP_UP", "call,refund", "top_up ", "deposit"])
def test_an_unknown_type_is_invalid_request(live_secret, get, value):
    error = assert_error(get(LIST, live_secret, type=value), 400, "invalid_request", param="type")
    assert "top_up" in error["message"]


@pytest.mark.parametrize("value", ["0", "101", "ten", "-1"])
def test_a_bad_limit(live_secret, get, value):
    assert_error(get(LIST, live_secret, limit=value), 400, "invalid_limit", param="limit")


@pytest.mark.parametrize("param", ["starting_after", "ending_before"])
@pytest.mark.parametrize("value", ["txn_doesnotexist000000000000", "key_abc", "txn_", "txn_a-b", "x" * 300])
def test_a_cursor_that_is_no_row_of_the_list(rows, live_secret, get, param, value):
    assert_error(get(LIST, live_secret, **{param: value}), 400, "invalid_cursor", param=param)


def test_both_cursors_at_once(rows, live_secret, get):
    response = get(LIST, live_secret, starting_after=rows[5].id, ending_before=rows[1].id)
    assert_error(response, 400, "invalid_cursor", param="ending_before")


def test_another_accounts_row_is_not_found_and_no_cursor(rows, live_secret, get):
    mine = rows[3]
    other = UserFactory()
    theirs = append(other)
    assert_error(get(f"{LIST}/{theirs.id}", live_secret), 404, "not_found", param="balance_transaction_id")
    for param in ("starting_after", "ending_before"):
        assert_error(get(LIST, live_secret, **{param: theirs.id}), 400, "invalid_cursor", param=param)
    _key, other_secret = make_api_key(other, scopes=["credits:read"])
    assert ids(get(LIST, other_secret)) == [theirs.id]
    assert_error(get(f"{LIST}/{mine.id}", other_secret), 404, "not_found", param="balance_transaction_id")


def test_test_mode_rows_are_seen_only_with_a_test_key(user, live_secret, test_secret, get):
    live = ledger(user, ["top_up", "call"], livemode=True)
    test = ledger(user, ["top_up", "call", "refund"], livemode=False)
    live_list = get(LIST, live_secret).json()["data"]
    test_list = get(LIST, test_secret).json()["data"]
    assert [r["id"] for r in live_list] == [r.id for r in live[::-1]]
    assert [r["id"] for r in test_list] == [r.id for r in test[::-1]]
    assert {r["livemode"] for r in live_list} == {True}
    assert {r["livemode"] for r in test_list} == {False}
    # The other mode's ids: 404 to read, and no cursor.
    assert_error(get(f"{LIST}/{test[0].id}", live_secret), 404, "not_found", param="balance_transaction_id")
    assert_error(get(f"{LIST}/{live[0].id}", test_secret), 404, "not_found", param="balance_transaction_id")
    assert_error(get(LIST, live_secret, starting_after=test[0].id), 400, "invalid_cursor", param="starting_after")
    assert_error(get(LIST, test_secret, ending_before=live[0].id), 400, "invalid_cursor", param="ending_before")
    assert get(f"{LIST}/{test[1].id}", test_secret).json()["livemode"] is False


def test_an_empty_ledger_is_an_empty_list(live_secret, get):
    assert get(LIST, live_secret).json() == {"object": "list", "data": [], "has_more": False, "url": LIST}


@pytest.mark.parametrize(
    "bad_id",
    ["txn_nosuchrow0000000000000000", "key_0123456789abcdefABCDEFGH", "txn_", "txn_a.b", "txn_%C3%A9", "x" * 300],
)
def test_retrieve_an_unknown_or_malformed_id_is_not_found(rows, live_secret, get, bad_id):
    response = get(f"{LIST}/{bad_id}", live_secret)
    assert_error(response, 404, "not_found", param="balance_transaction_id")


def test_a_malformed_id_never_reaches_a_query(user, live_secret, get, django_assert_num_queries):
    get("/v1/balance", live_secret)  # the key's row is now cached in process or not: count only the lookup
    with django_assert_num_queries(1):  # the credential lookup (no cache without Redis), nothing for the id
        response = get(f"{LIST}/txn_bad-id", live_secret)
    assert response.status_code == 404


def test_a_trailing_slash_is_route_not_found(rows, live_secret, get):
    assert_error(get(f"{LIST}/", live_secret), 404, "route_not_found")
