"""Paging on its own: limit parsing, ``page`` (no HTTP) and IdCursorPagination over any list shape."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from apps.api_v1.pagination import DEFAULT_LIMIT, MAX_LIMIT, IdCursorPagination, Listing, parse_limit
from apps.apikeys.models import ApiKey
from apps.core.errors import ApiError
from apps.core.ids import digest, new_secret
from tests.support.factories import UserFactory


def test_limit_default_and_bounds():
    assert parse_limit(None) == DEFAULT_LIMIT == 10
    assert parse_limit("1") == 1
    assert parse_limit(str(MAX_LIMIT)) == 100


@pytest.mark.parametrize("value", ["0", "101", "", "-3", "3.0", "x", "１", "10 "])
def test_bad_limits(value):
    with pytest.raises(ApiError) as exc:
        parse_limit(value)
    assert exc.value.code == "invalid_limit"
    assert exc.value.param == "limit"


class View:
    cursor_id_prefix = "key_"


def page(queryset, **query):
    request = Request(APIRequestFactory().get("/v1/things", query))
    paginator = IdCursorPagination()
    items = paginator.paginate_queryset(queryset, request, view=View())
    return [i.id for i in items], paginator


@pytest.fixture
def keys(db):
    user = UserFactory()
    now = timezone.now()
    made = []
    for i in range(5):
        secret = new_secret("sk_live_")
        made.append(
            ApiKey.objects.create(
                user=user,
                name=str(i),
                secret_digest=digest(secret),
                secret_last4=secret[-4:],
                api_version="2026-10-01",
                created=now + timedelta(seconds=i),
                expires_at=now + timedelta(days=1),
            )
        )
    return ApiKey.objects.filter(user=user), [k.id for k in reversed(made)]


def test_pages_and_body(keys):
    queryset, newest_first = keys
    ids, paginator = page(queryset, limit="2")
    assert ids == newest_first[:2]
    assert paginator.list_body(["a"]) == {"object": "list", "data": ["a"], "has_more": True, "url": "/v1/things"}
    ids, paginator = page(queryset, limit="2", starting_after=newest_first[1])
    assert ids == newest_first[2:4] and paginator.has_more
    ids, paginator = page(queryset, limit="2", starting_after=newest_first[3])
    assert ids == newest_first[4:] and not paginator.has_more
    ids, paginator = page(queryset, limit="2", ending_before=newest_first[4])
    assert ids == newest_first[2:4] and paginator.has_more
    ids, paginator = page(queryset, limit="2", ending_before=newest_first[2])
    assert ids == newest_first[:2] and not paginator.has_more


def test_cursor_must_be_in_the_given_queryset(keys):
    queryset, newest_first = keys
    with pytest.raises(ApiError) as exc:
        page(queryset.exclude(pk=newest_first[0]), starting_after=newest_first[0])
    assert (exc.value.code, exc.value.param) == ("invalid_cursor", "starting_after")


def test_cursor_must_carry_the_views_prefix(keys):
    queryset, newest_first = keys
    with pytest.raises(ApiError) as exc:
        page(queryset, ending_before=newest_first[0].removeprefix("key_"))
    assert (exc.value.code, exc.value.param) == ("invalid_cursor", "ending_before")


def _keys_of(user_id, *, name=None):
    keys = ApiKey.objects.filter(user_id=user_id)
    return keys if name is None else keys.filter(name=name)


def test_a_listing_pages_as_its_queryset_does(keys):
    queryset, newest_first = keys
    listing = Listing(_keys_of, (), {"user_id": queryset.first().user_id})
    for query in (
        {"limit": "2"},
        {"limit": "2", "starting_after": newest_first[1]},
        {"limit": "2", "starting_after": newest_first[3]},
        {"limit": "2", "ending_before": newest_first[4]},
        {"limit": "2", "ending_before": newest_first[2]},
        {},
    ):
        by_listing, listed = page(listing, **query)
        by_queryset, queried = page(queryset, **query)
        assert by_listing == by_queryset and listed.has_more == queried.has_more, query


def test_a_filtered_listing_takes_its_cursors_from_its_cursors(keys):
    queryset, newest_first = keys
    user_id = queryset.first().user_id
    every = Listing(_keys_of, (), {"user_id": user_id})
    only_one = Listing(_keys_of, (), {"user_id": user_id, "name": "4"}, cursors=every)
    # The newest key is named "4": after the second newest, the one-key list has nothing.
    assert page(only_one, starting_after=newest_first[1])[0] == []
    assert page(only_one, ending_before=newest_first[1])[0] == [newest_first[0]]
    with pytest.raises(ApiError) as exc:
        page(Listing(_keys_of, (), {"user_id": user_id, "name": "4"}), starting_after=newest_first[1])
    assert (exc.value.code, exc.value.param) == ("invalid_cursor", "starting_after")


def test_a_listing_built_by_a_lambda_is_refused(keys):
    queryset, _ = keys
    with pytest.raises(TypeError, match="module-level"):
        page(Listing(lambda: queryset, (), {}))


def test_the_paging_function_knows_no_http(keys):
    """``page`` takes plain arguments (what MCP tools hold) and pages exactly as the REST paginator does."""
    from apps.api_v1.public import page as plain_page

    queryset, newest_first = keys
    listing = Listing(_keys_of, (), {"user_id": queryset.first().user_id})
    for rows in (queryset, listing):
        for cursors in ({}, {"after": newest_first[1]}, {"before": newest_first[4]}):
            found = plain_page(rows, limit=2, prefix="key_", **cursors)
            query = {"limit": "2"}
            if "after" in cursors:
                query["starting_after"] = cursors["after"]
            if "before" in cursors:
                query["ending_before"] = cursors["before"]
            ids, paginator = page(rows, **query)
            assert [i.id for i in found.items] == ids and found.has_more == paginator.has_more
    with pytest.raises(ApiError) as exc:
        plain_page(queryset, limit=2, after=newest_first[0], before=newest_first[1], prefix="key_")
    assert (exc.value.code, exc.value.param) == ("invalid_cursor", "ending_before")


def test_a_list_of_its_own_order_pages_through_the_same_function():
    """Any object with ``rows`` and ``position`` (the contacts' name order) is a list ``page`` reads."""
    from apps.api_v1.public import page as plain_page

    class Letters:
        order = "abcde"

        def rows(self, travel, limit, position):
            at = None if position is None else self.order.index(position["id"][4:])
            if travel == "first":
                chosen = self.order
            elif travel == "after":
                chosen = self.order[at + 1 :]
            else:
                chosen = self.order[:at][::-1]
            return [f"let_{c}" for c in chosen[:limit]]

        def position(self, object_id):
            return {"id": object_id} if object_id[4:] in self.order else None

    found = plain_page(Letters(), limit=2, after="let_b", prefix="let_")
    assert found.items == ["let_c", "let_d"] and found.has_more
    found = plain_page(Letters(), limit=2, before="let_d", prefix="let_")
    assert found.items == ["let_b", "let_c"] and found.has_more
    with pytest.raises(ApiError):
        plain_page(Letters(), limit=2, after="let_z", prefix="let_")
