"""GET /v1/api-keys: the list envelope and cursor pagination both ways (docs/spec.md 4, 8.5)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.apikeys.models import ApiKey
from apps.core.ids import digest, new_secret
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory, make_api_key


def add_keys(user, count, *, same_instant=False):
    """Rows made directly (the 10-live-key limit is not the point here); oldest first."""
    base = timezone.now() - timedelta(days=1)
    keys = []
    for i in range(count):
        secret = new_secret("sk_live_")
        keys.append(
            ApiKey.objects.create(
                user=user,
                name=f"key {i}",
                scopes=["rates:read"],
                secret_digest=digest(secret),
                secret_last4=secret[-4:],
                api_version="2026-10-01",
                created=base if same_instant else base + timedelta(seconds=i),
                expires_at=base + timedelta(days=90),
            )
        )
    return keys


def newest_first(keys):
    return [k.id for k in sorted(keys, key=lambda k: (k.created, k.id), reverse=True)]


def ids(response):
    assert response.status_code == 200, response.content
    return [k["id"] for k in response.json()["data"]]


def test_empty_list(dashboard):
    response = dashboard.get("/v1/api-keys")
    assert response.status_code == 200
    assert response.json() == {"object": "list", "data": [], "has_more": False, "url": "/v1/api-keys"}


def test_list_shape_newest_first_without_secrets(dashboard, user):
    _, secret_a = make_api_key(user, name="a")
    _, secret_b = make_api_key(user, name="b")
    response = dashboard.get("/v1/api-keys")
    body = response.json()
    assert body["object"] == "list"
    assert body["url"] == "/v1/api-keys"
    assert body["has_more"] is False
    assert [k["name"] for k in body["data"]] == ["b", "a"]
    assert all("secret" not in k and k["object"] == "api_key" for k in body["data"])
    assert secret_a not in response.content.decode() and secret_b not in response.content.decode()


def test_list_shows_only_the_callers_keys_of_every_status(dashboard, user):
    mine = add_keys(user, 3)
    ApiKey.objects.filter(pk=mine[0].pk).update(revoked_at=timezone.now())
    ApiKey.objects.filter(pk=mine[1].pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    add_keys(UserFactory(), 3)
    data = dashboard.get("/v1/api-keys").json()["data"]
    assert [k["id"] for k in data] == newest_first(mine)
    assert [k["status"] for k in data] == ["live", "expired", "revoked"]


def test_default_limit_is_10(dashboard, user):
    keys = add_keys(user, 11)
    response = dashboard.get("/v1/api-keys")
    assert ids(response) == newest_first(keys)[:10]
    assert response.json()["has_more"] is True


@pytest.mark.parametrize("same_instant", [False, True], ids=["distinct-times", "same-instant"])
def test_paging_forward_then_back_visits_every_key_once(dashboard, user, same_instant):
    keys = add_keys(user, 25, same_instant=same_instant)
    expected = newest_first(keys)

    pages, has_more, cursor = [], True, None
    while has_more:
        query = "?limit=7" + (f"&starting_after={cursor}" if cursor else "")
        response = dashboard.get("/v1/api-keys" + query)
        page = ids(response)
        pages.append(page)
        has_more = response.json()["has_more"]
        cursor = page[-1]
    assert [len(p) for p in pages] == [7, 7, 7, 4]
    assert [i for page in pages for i in page] == expected

    # Back from the oldest key with ending_before: each page keeps newest-first order.
    back, has_more, cursor = [], True, expected[-1]
    while has_more:
        response = dashboard.get(f"/v1/api-keys?limit=7&ending_before={cursor}")
        page = ids(response)
        back.insert(0, page)
        has_more = response.json()["has_more"]
        cursor = page[0]
    assert [len(p) for p in back] == [3, 7, 7, 7]
    assert [i for page in back for i in page] == expected[:-1]


def test_has_more_is_exact_at_the_boundary(dashboard, user):
    keys = newest_first(add_keys(user, 6))
    first = dashboard.get("/v1/api-keys?limit=3")
    assert first.json()["has_more"] is True
    second = dashboard.get(f"/v1/api-keys?limit=3&starting_after={keys[2]}")
    assert ids(second) == keys[3:]
    assert second.json()["has_more"] is False
    before = dashboard.get(f"/v1/api-keys?limit=3&ending_before={keys[3]}")
    assert ids(before) == keys[:3]
    assert before.json()["has_more"] is False
    newest = dashboard.get(f"/v1/api-keys?ending_before={keys[0]}")
    assert ids(newest) == [] and newest.json()["has_more"] is False
    oldest = dashboard.get(f"/v1/api-keys?starting_after={keys[-1]}")
    assert ids(oldest) == [] and oldest.json()["has_more"] is False


def test_a_revoked_key_is_still_a_valid_cursor(dashboard, user):
    keys = newest_first(add_keys(user, 3))
    ApiKey.objects.filter(pk=keys[1]).update(revoked_at=timezone.now())
    assert ids(dashboard.get(f"/v1/api-keys?starting_after={keys[1]}")) == keys[2:]


@pytest.mark.parametrize("limit", ["1", "100", "010"])
def test_limit_bounds(dashboard, user, limit):
    add_keys(user, 101)
    assert len(ids(dashboard.get(f"/v1/api-keys?limit={limit}"))) == int(limit)


@pytest.mark.parametrize("limit", ["0", "101", "-1", "abc", "", "1.5", "1e2", " 5", "+5", "٥", "99999999999999999999"])
def test_invalid_limit(dashboard, limit):
    error = assert_error(dashboard.get("/v1/api-keys", {"limit": limit}), 400, "invalid_limit", param="limit")
    assert error["type"] == "invalid_request_error"


@pytest.mark.parametrize("param", ["starting_after", "ending_before"])
def test_cursor_of_another_users_key_is_invalid(dashboard, user, param):
    add_keys(user, 2)
    (theirs,) = add_keys(UserFactory(), 1)
    assert_error(dashboard.get("/v1/api-keys", {param: theirs.id}), 400, "invalid_cursor", param=param)


@pytest.mark.parametrize("param", ["starting_after", "ending_before"])
@pytest.mark.parametrize(
    "value", ["", "abc", "key_", "key_doesnotexist000000000000", "usr_abc", "KEY_abc", "key_\x00x", "key_é", "key_a b"]
)
def test_cursor_without_the_prefix_or_unknown_is_invalid(dashboard, user, param, value):
    add_keys(user, 1)
    assert_error(dashboard.get("/v1/api-keys", {param: value}), 400, "invalid_cursor", param=param)


def test_cursor_without_prefix_of_an_existing_id_is_invalid(dashboard, user):
    (key,) = add_keys(user, 1)
    bare = key.id.removeprefix("key_")
    assert_error(dashboard.get("/v1/api-keys", {"starting_after": bare}), 400, "invalid_cursor", param="starting_after")


def test_both_cursors_are_refused(dashboard, user):
    a, b = add_keys(user, 2)
    response = dashboard.get("/v1/api-keys", {"starting_after": a.id, "ending_before": b.id})
    error = assert_error(response, 400, "invalid_cursor", param="ending_before")
    assert "at most one" in error["message"]


def test_list_query_count_does_not_grow_with_the_page(dashboard, user, django_assert_max_num_queries):
    keys = newest_first(add_keys(user, 30))
    dashboard.get("/v1/api-keys?limit=1")  # warm the session
    with django_assert_max_num_queries(4):  # session, user, cursor, page
        assert len(ids(dashboard.get(f"/v1/api-keys?limit=100&starting_after={keys[0]}"))) == 29
