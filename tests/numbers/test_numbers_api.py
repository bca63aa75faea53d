"""GET /v1/numbers, /v1/numbers/{id} and /v1/caller_ids (docs/design.md, Phase 2: numbers:read).

"``number``: ``number``, ``country``, ``type`` (``local``, ``mobile``, ``national``,
``toll_free``), ``capabilities`` ``{"voice","sms"}``, ``messages_opt_in`` (the per-number
sharing switch, off by default), ``status`` (``active``, ``canceled``), ``label``,
``renews_at``" and "list of ``caller_id``: ``number``, ``country``, ``verified_at``, ``default``".
"""

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.numbers.models import CallerId, Number
from apps.numbers.services import caller_id_make_default
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory

from .factories import make_caller_id, make_number, make_numbers
from .shapes import CALLER_ID_FIELDS, NUMBER_FIELDS

pytestmark = pytest.mark.django_db


def ids(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [o["id"] for o in response.json()["data"]]


# --- Shapes ---------------------------------------------------------------------------------


def test_a_number_has_exactly_the_design_fields(get, user, live_secret):
    renews = timezone.now().replace(microsecond=0) + timedelta(days=12)
    number = make_number(user, "+442071838750", type="local", sms=True, label="London office", renews_at=renews)
    body = get(f"/v1/numbers/{number.id}", live_secret).json()
    assert set(body) == NUMBER_FIELDS
    assert body == {
        "id": number.id,
        "object": "number",
        "number": "+442071838750",
        "country": "GB",
        "type": "local",
        "capabilities": {"voice": True, "sms": True},
        "messages_opt_in": False,  # off by default
        "status": "active",
        "label": "London office",
        "renews_at": int(renews.timestamp()),
        "created": int(number.created.timestamp()),
        "livemode": True,
    }
    assert number.id.startswith("num_") and len(number.id) == 28


def test_a_canceled_number_without_label_or_renewal(get, user, live_secret):
    number = make_number(user, "+18005550100", type="toll_free", voice=True, sms=False, status="canceled")
    body = get(f"/v1/numbers/{number.id}", live_secret).json()
    assert (body["status"], body["renews_at"], body["label"], body["type"]) == ("canceled", None, None, "toll_free")
    assert body["capabilities"] == {"voice": True, "sms": False}
    assert body["country"] == "US"


@pytest.mark.parametrize("kind", ["local", "mobile", "national", "toll_free"])
def test_every_type_is_served(get, user, live_secret, kind):
    number = make_number(user, type=kind)
    assert get(f"/v1/numbers/{number.id}", live_secret).json()["type"] == kind


def test_the_number_list_is_the_phase_1_list_shape_newest_first(get, user, live_secret):
    older, newer = make_numbers(user, 2)
    response = get("/v1/numbers", live_secret)
    body = response.json()
    assert set(body) == {"object", "data", "has_more", "url"}
    assert (body["object"], body["url"], body["has_more"]) == ("list", "/v1/numbers", False)
    assert [n["id"] for n in body["data"]] == [newer.id, older.id]
    assert all(set(n) == NUMBER_FIELDS for n in body["data"])
    assert body["data"][0] == get(f"/v1/numbers/{newer.id}", live_secret).json()


def test_a_caller_id_has_exactly_the_design_fields(get, user, live_secret):
    verified = timezone.now().replace(microsecond=0) - timedelta(days=40)
    caller_id = make_caller_id(user, "+14155550100", default=True, verified_at=verified)
    body = get("/v1/caller_ids", live_secret).json()
    assert (body["object"], body["url"], body["has_more"]) == ("list", "/v1/caller_ids", False)
    (item,) = body["data"]
    assert set(item) == CALLER_ID_FIELDS
    assert item == {
        "id": caller_id.id,
        "object": "caller_id",
        "number": "+14155550100",
        "country": "US",
        "verified_at": int(verified.timestamp()),
        "default": True,
        "created": int(caller_id.created.timestamp()),
        "livemode": True,
    }
    assert caller_id.id.startswith("cid_") and len(caller_id.id) == 28


# --- One default caller ID -----------------------------------------------------------------------


def test_at_most_one_default_caller_id_per_account_and_mode(user):
    make_caller_id(user, "+14155550100", default=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        CallerId.objects.create(user=user, livemode=True, number="+14155550101", is_default=True)
    # Another mode and another account keep their own default.
    make_caller_id(user, "+14155550102", livemode=False, default=True)
    make_caller_id(UserFactory(), "+14155550103", default=True)
    # Any number of non-default ones.
    make_caller_id(user, "+14155550104")
    make_caller_id(user, "+14155550105")
    assert CallerId.objects.filter(user=user, livemode=True, is_default=True).count() == 1


def test_making_another_default_moves_the_default(get, user, live_secret):
    first = make_caller_id(user, "+14155550100", default=True)
    second = make_caller_id(user, "+14155550101", default=True)
    assert CallerId.objects.get(pk=first.pk).is_default is False
    caller_id_make_default(caller_id=first)
    defaults = {c["number"]: c["default"] for c in get("/v1/caller_ids", live_secret).json()["data"]}
    assert defaults == {"+14155550100": True, "+14155550101": False}
    assert CallerId.objects.get(pk=second.pk).is_default is False


# --- Pagination ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path,make", [("/v1/numbers", "numbers"), ("/v1/caller_ids", "caller_ids")])
def test_pages_both_ways(get, user, live_secret, path, make):
    if make == "numbers":
        made = make_numbers(user, 5)
    else:
        start = timezone.now() - timedelta(days=1)
        made = [
            make_caller_id(user, f"+1415555010{n}", created=start + timedelta(seconds=n), default=n == 0)
            for n in range(5)
        ]
    newest_first = [o.id for o in reversed(made)]
    first = get(path, live_secret, limit=2).json()
    assert [o["id"] for o in first["data"]] == newest_first[:2] and first["has_more"] is True
    second = get(path, live_secret, limit=2, starting_after=first["data"][-1]["id"]).json()
    assert [o["id"] for o in second["data"]] == newest_first[2:4] and second["has_more"] is True
    third = get(path, live_secret, limit=2, starting_after=second["data"][-1]["id"]).json()
    assert [o["id"] for o in third["data"]] == newest_first[4:] and third["has_more"] is False
    back = get(path, live_secret, limit=2, ending_before=third["data"][0]["id"]).json()
    assert [o["id"] for o in back["data"]] == newest_first[2:4] and back["has_more"] is True
    back = get(path, live_secret, limit=2, ending_before=back["data"][0]["id"]).json()
    assert [o["id"] for o in back["data"]] == newest_first[:2] and back["has_more"] is False


# --- Errors ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/numbers", "/v1/caller_ids"])
@pytest.mark.parametrize("limit", ["0", "101", "x", ""])
def test_a_bad_limit_is_400(get, live_secret, path, limit):
    assert_error(get(path, live_secret, limit=limit), 400, "invalid_limit", param="limit")


@pytest.mark.parametrize("path,other_prefix", [("/v1/numbers", "cid_"), ("/v1/caller_ids", "num_")])
@pytest.mark.parametrize("param", ["starting_after", "ending_before"])
def test_a_bad_cursor_is_400_naming_it(get, user, live_secret, path, other_prefix, param):
    number = make_number(user)
    caller_id = make_caller_id(user)
    wrong_kind = caller_id.id if other_prefix == "cid_" else number.id
    for cursor in (wrong_kind, other_prefix + "0123456789abcdefABCDEFGH", "nope", "num_a-b"):
        assert_error(get(path, live_secret, **{param: cursor}), 400, "invalid_cursor", param=param)


@pytest.mark.parametrize("path", ["/v1/numbers", "/v1/caller_ids"])
def test_both_cursors_is_400(get, user, live_secret, path):
    number, caller_id = make_number(user), make_caller_id(user)
    cursor = number.id if path == "/v1/numbers" else caller_id.id
    response = get(path, live_secret, starting_after=cursor, ending_before=cursor)
    assert_error(response, 400, "invalid_cursor", param="ending_before")


@pytest.mark.parametrize(
    "number_id", ["num_doesnotexist000000000000", "cid_0123456789abcdefABCDEFGH", "num_a-b", "num_"]
)
def test_an_unknown_or_malformed_number_id_is_404_naming_number_id(get, live_secret, number_id):
    assert_error(get(f"/v1/numbers/{number_id}", live_secret), 404, "not_found", param="number_id")


def test_caller_ids_have_no_detail_route(get, user, live_secret):
    caller_id = make_caller_id(user)
    assert_error(get(f"/v1/caller_ids/{caller_id.id}", live_secret), 404, "route_not_found")


# --- Accounts and modes --------------------------------------------------------------------------------


def test_another_accounts_numbers_and_caller_ids_are_invisible(get, user, live_secret):
    other_user = UserFactory()
    other_number = make_number(other_user)
    other_caller_id = make_caller_id(other_user, default=True)
    mine = make_number(user, "+442071838751")
    assert_error(get(f"/v1/numbers/{other_number.id}", live_secret), 404, "not_found", param="number_id")
    assert ids(get("/v1/numbers", live_secret)) == [mine.id]
    assert ids(get("/v1/caller_ids", live_secret)) == []
    for param in ("starting_after", "ending_before"):
        assert_error(get("/v1/numbers", live_secret, **{param: other_number.id}), 400, "invalid_cursor", param=param)
        response = get("/v1/caller_ids", live_secret, **{param: other_caller_id.id})
        assert_error(response, 400, "invalid_cursor", param=param)


def test_a_test_key_sees_only_test_rows_and_a_live_key_only_live_ones(get, user, live_secret, test_secret):
    live_number, test_number = make_number(user), make_number(user, "+442071838799", livemode=False)
    live_cid = make_caller_id(user, default=True)
    test_cid = make_caller_id(user, "+14155550199", livemode=False, default=True)
    assert ids(get("/v1/numbers", live_secret)) == [live_number.id]
    assert ids(get("/v1/numbers", test_secret)) == [test_number.id]
    assert ids(get("/v1/caller_ids", live_secret)) == [live_cid.id]
    assert ids(get("/v1/caller_ids", test_secret)) == [test_cid.id]
    assert get(f"/v1/numbers/{test_number.id}", test_secret).json()["livemode"] is False
    assert get("/v1/caller_ids", test_secret).json()["data"][0]["livemode"] is False
    assert_error(get(f"/v1/numbers/{live_number.id}", test_secret), 404, "not_found", param="number_id")
    assert_error(get(f"/v1/numbers/{test_number.id}", live_secret), 404, "not_found", param="number_id")
    response = get("/v1/numbers", live_secret, starting_after=test_number.id)
    assert_error(response, 400, "invalid_cursor", param="starting_after")
    response = get("/v1/caller_ids", test_secret, ending_before=live_cid.id)
    assert_error(response, 400, "invalid_cursor", param="ending_before")


# --- Other rules ---------------------------------------------------------------------------------------------

PATHS = ["/v1/numbers", "/v1/numbers/num_doesnotexist000000000000", "/v1/caller_ids"]


@pytest.mark.parametrize("path", PATHS)
def test_no_credential_is_401(client, path):
    assert_error(client.get(path), 401, "invalid_token")


def test_reads_spend_the_reads_budget(get, live_secret):
    assert get("/v1/numbers", live_secret)["RateLimit-Policy"] == "60;w=60"


def test_the_switch_is_stored_per_number(get, user, live_secret):
    on, off = make_numbers(user, 2)
    Number.objects.filter(pk=on.pk).update(messages_opt_in=True)
    switches = {n["id"]: n["messages_opt_in"] for n in get("/v1/numbers", live_secret).json()["data"]}
    assert switches == {on.id: True, off.id: False}
