"""GET /v1/messages and /v1/messages/{id} (docs/design.md, Phase 3: "Messages (receive-only inbox)").

"A ``message``: ``{"id":"msg_...","object":"message","direction":"inbound","number":"num_...","to",
"from","body","num_segments","one_time_code":{"code","domain"}|null,"created","livemode"}``."
Refusals in this order: a number not the caller's is 404 ``not_found``; a number with
``messages_opt_in`` off is 403 ``number_not_opted_in``; without ``messages:history`` only the
last 60 minutes are readable (403 ``insufficient_scope``, ``scope="messages:history"``).
"""

import time
from io import StringIO

import pytest

from apps.messages.models import Message
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory, make_api_key
from tests.support.scopes import challenge

from .factories import make_message, make_sms_number, share

pytestmark = pytest.mark.django_db

FIELDS = {
    "id",
    "object",
    "direction",
    "number",
    "to",
    "from",
    "body",
    "num_segments",
    "one_time_code",
    "created",
    "livemode",
}
HISTORY_CHALLENGE = challenge("messages:history", "v1")


def ids(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [m["id"] for m in response.json()["data"]]


@pytest.fixture
def number(user):
    return make_sms_number(user)


# --- Shapes ---------------------------------------------------------------------------------


def test_a_message_has_exactly_the_design_fields(get, number, live_secret):
    message = make_message(number, "Your Demo code is 123456.\n\n@demo.example #123456", sender="+12025550150")
    body = get(f"/v1/messages/{message.id}", live_secret).json()
    assert set(body) == FIELDS
    assert body == {
        "id": message.id,
        "object": "message",
        "direction": "inbound",
        "number": number.id,
        "to": "+442071838750",
        "from": "+12025550150",
        "body": "Your Demo code is 123456.\n\n@demo.example #123456",
        "num_segments": 1,
        "one_time_code": {"code": "123456", "domain": "demo.example"},
        "created": int(message.created.timestamp()),
        "livemode": True,
    }
    assert message.id.startswith("msg_") and len(message.id) == 28


def test_the_list_is_the_phase_one_list_newest_first(get, number, live_secret):
    older, newer = make_message(number, "one", ago=120), make_message(number, "two", ago=60)
    response = get("/v1/messages", live_secret)
    body = response.json()
    assert set(body) == {"object", "data", "has_more", "url"}
    assert body["object"] == "list" and body["url"] == "/v1/messages" and body["has_more"] is False
    assert ids(response) == [newer.id, older.id]
    assert set(body["data"][0]) == FIELDS


def test_an_alphanumeric_sender_and_a_plain_code_and_segments(get, number, live_secret):
    message = make_message(number, "HSBC: Your verification code is 4821. Never share it." + " x" * 80, sender="HSBC")
    body = get(f"/v1/messages/{message.id}", live_secret).json()
    assert body["from"] == "HSBC"
    assert body["one_time_code"] == {"code": "4821", "domain": None}
    assert body["num_segments"] == 2


def test_digits_that_are_not_a_code_give_null(get, number, live_secret):
    message = make_message(number, "Your order 12345 has shipped and arrives on 2026-12-01.")
    assert get(f"/v1/messages/{message.id}", live_secret).json()["one_time_code"] is None


def test_paging_with_cursors(get, number, live_secret):
    messages = [make_message(number, f"m{n}", ago=300 - n) for n in range(5)]
    newest_first = [m.id for m in reversed(messages)]
    first = get("/v1/messages", live_secret, limit=2)
    assert ids(first) == newest_first[:2] and first.json()["has_more"] is True
    second = get("/v1/messages", live_secret, limit=2, starting_after=newest_first[1])
    assert ids(second) == newest_first[2:4]
    back = get("/v1/messages", live_secret, limit=2, ending_before=newest_first[2])
    assert ids(back) == newest_first[:2]


# --- Filters --------------------------------------------------------------------------------


def test_without_number_every_opted_in_number(get, user, number, live_secret):
    other = make_sms_number(user, "+442071838751")
    off = make_sms_number(user, "+442071838752", shared=False)
    a, b = make_message(number, "a", ago=30), make_message(other, "b", ago=20)
    make_message(off, "hidden", ago=10)
    assert ids(get("/v1/messages", live_secret)) == [b.id, a.id]


def test_number_by_id_and_by_e164(get, user, number, live_secret):
    other = make_sms_number(user, "+442071838751")
    mine = make_message(number, "mine", ago=30)
    make_message(other, "other", ago=20)
    assert ids(get("/v1/messages", live_secret, number=number.id)) == [mine.id]
    assert ids(get("/v1/messages", live_secret, number="+442071838750")) == [mine.id]


def test_an_e164_number_sent_unescaped_in_the_query(client, number, live_secret):
    mine = make_message(number, "mine")
    # "+" unescaped in a query string reads as a space.
    response = client.get("/v1/messages?number=+442071838750", HTTP_AUTHORIZATION=f"Bearer {live_secret}")
    assert ids(response) == [mine.id]


def test_from_filter(get, number, live_secret):
    bank = make_message(number, "bank", sender="HSBC", ago=30)
    friend = make_message(number, "friend", sender="+447700900123", ago=20)
    assert ids(get("/v1/messages", live_secret, **{"from": "HSBC"})) == [bank.id]
    assert ids(get("/v1/messages", live_secret, **{"from": "+447700900123"})) == [friend.id]


def test_created_filters(get, number, live_secret):
    old, mid, new = (make_message(number, str(n), ago=ago) for n, ago in enumerate((1800, 900, 60)))
    mid_at = int(mid.created.timestamp())
    assert ids(get("/v1/messages", live_secret, **{"created[gte]": mid_at})) == [new.id, mid.id]
    assert ids(get("/v1/messages", live_secret, **{"created[lt]": mid_at})) == [old.id]
    both = {"created[gte]": mid_at, "created[lt]": mid_at + 1}
    assert ids(get("/v1/messages", live_secret, **both)) == [mid.id]


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("created[gte]", "yesterday"),
        ("created[lt]", "-5"),
        ("created[gte]", "1" * 12),
        ("from", "not a sender because far too long"),
        ("from", "<script>"),
    ],
)
def test_a_malformed_filter_is_invalid_request_naming_it(get, number, live_secret, param, value):
    assert_error(get("/v1/messages", live_secret, **{param: value}), 400, "invalid_request", param=param)


# --- The order of refusals -------------------------------------------------------------------


def test_a_number_not_yours_is_not_found(get, user, number, live_secret):
    stranger = UserFactory()
    theirs = make_sms_number(stranger, "+442071838760")
    make_message(theirs, "secret")
    for value in (theirs.id, "+442071838760", "num_doesnotexist", "+1", "nonsense"):
        assert_error(get("/v1/messages", live_secret, number=value), 404, "not_found", param="number")


def test_a_number_of_the_other_mode_is_not_found(get, user, live_secret, test_secret):
    test_number = make_sms_number(user, "+442071838770", livemode=False)
    live_number = make_sms_number(user, "+442071838771")
    assert_error(get("/v1/messages", live_secret, number=test_number.id), 404, "not_found", param="number")
    assert_error(get("/v1/messages", test_secret, number=live_number.id), 404, "not_found", param="number")


def test_a_number_switched_off_is_number_not_opted_in(get, user, live_secret):
    off = make_sms_number(user, shared=False)
    error = assert_error(
        get("/v1/messages", live_secret, number=off.id), 403, "number_not_opted_in", param="number",
        type_="permission_error",
    )  # fmt: skip
    assert "/settings/sharing" in error["message"]


def test_not_found_comes_before_not_opted_in_which_comes_before_history(get, user, live_secret):
    off = make_sms_number(user, shared=False)
    old = int(time.time()) - 7200
    stranger_number = make_sms_number(UserFactory(), "+442071838760", shared=False)
    response = get("/v1/messages", live_secret, number=stranger_number.id, **{"created[gte]": old})
    assert_error(response, 404, "not_found", param="number")
    response = get("/v1/messages", live_secret, number=off.id, **{"created[gte]": old})
    assert_error(response, 403, "number_not_opted_in", param="number")


def test_without_history_the_list_stops_at_sixty_minutes(get, number, live_secret, history_secret):
    recent = make_message(number, "recent", ago=59 * 60)
    old = make_message(number, "old", ago=61 * 60)
    response = get("/v1/messages", live_secret)
    assert ids(response) == [recent.id] and response.json()["has_more"] is False
    assert ids(get("/v1/messages", history_secret)) == [recent.id, old.id]


@pytest.mark.parametrize(
    ("param", "seconds_ago"), [("created[gte]", 3700), ("created[lt]", 3600), ("created[lt]", 9000)]
)
def test_asking_for_older_without_history_is_insufficient_scope(get, number, live_secret, param, seconds_ago):
    response = get("/v1/messages", live_secret, **{param: int(time.time()) - seconds_ago})
    error = assert_error(response, 403, "insufficient_scope", type_="permission_error")
    assert "messages:history" in error["message"]
    assert response["WWW-Authenticate"] == HISTORY_CHALLENGE


def test_asking_for_older_with_history_is_served(get, number, history_secret):
    old = make_message(number, "old", ago=7200)
    assert ids(get("/v1/messages", history_secret, **{"created[lt]": int(time.time()) - 3600})) == [old.id]


def test_reading_an_older_message_by_id(get, number, live_secret, history_secret):
    old = make_message(number, "old", ago=3700)
    response = get(f"/v1/messages/{old.id}", live_secret)
    assert_error(response, 403, "insufficient_scope")
    assert response["WWW-Authenticate"] == HISTORY_CHALLENGE
    assert get(f"/v1/messages/{old.id}", history_secret).json()["id"] == old.id


def test_a_message_by_id_of_another_account_or_mode_or_malformed_is_not_found(get, user, live_secret):
    theirs = make_message(make_sms_number(UserFactory(), "+442071838760"))
    test_mode = make_message(make_sms_number(user, "+442071838770", livemode=False))
    for message_id in (theirs.id, test_mode.id, "msg_nope", "msg_" + "a" * 40, "call_abc"):
        assert_error(get(f"/v1/messages/{message_id}", live_secret), 404, "not_found", param="message_id")


def test_a_message_by_id_whose_number_is_off_is_number_not_opted_in(get, user, live_secret):
    number = make_sms_number(user)
    message = make_message(number)
    share(user, number, on=False)
    assert_error(get(f"/v1/messages/{message.id}", live_secret), 403, "number_not_opted_in", param="number")


# --- Switching off between two reads ---------------------------------------------------------


def test_switching_a_number_off_hides_its_messages_on_the_next_read(get, user, number, live_secret):
    message = make_message(number)
    assert ids(get("/v1/messages", live_secret)) == [message.id]
    assert get(f"/v1/messages/{message.id}", live_secret).status_code == 200
    share(user, number, on=False)
    assert ids(get("/v1/messages", live_secret)) == []
    assert_error(get("/v1/messages", live_secret, number=number.id), 403, "number_not_opted_in", param="number")
    assert_error(get(f"/v1/messages/{message.id}", live_secret), 403, "number_not_opted_in", param="number")


def test_the_account_switch_off_hides_every_number(get, user, number, live_secret):
    from apps.accounts.security import sharing_update

    message = make_message(number)
    assert ids(get("/v1/messages", live_secret)) == [message.id]
    sharing_update(user=user, call_summaries=False, message_reading=False)
    assert ids(get("/v1/messages", live_secret)) == []
    assert_error(get(f"/v1/messages/{message.id}", live_secret), 403, "number_not_opted_in", param="number")


def test_a_cached_credential_still_sees_the_switch_at_once(store, user, number):
    from django.test import Client

    from tests.support.credentials import cached_key_secret

    secret = cached_key_secret(user, ["messages:read"])
    message = make_message(number)
    client = Client()
    assert client.get(f"/v1/messages/{message.id}", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200
    share(user, number, on=False)
    response = client.get(f"/v1/messages/{message.id}", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert_error(response, 403, "number_not_opted_in", param="number")


# --- Isolation and cursors --------------------------------------------------------------------


def test_test_mode_sees_only_test_messages(get, user, number, live_secret, test_secret):
    live = make_message(number, "live")
    test_number = make_sms_number(user, "+442071838770", livemode=False)
    test = make_message(test_number, "test")
    assert ids(get("/v1/messages", live_secret)) == [live.id]
    assert ids(get("/v1/messages", test_secret)) == [test.id]
    assert get(f"/v1/messages/{test.id}", test_secret).json()["livemode"] is False


def test_another_accounts_messages_never_list(get, user, number, live_secret):
    stranger = UserFactory()
    make_message(make_sms_number(stranger, "+442071838760"), "theirs")
    mine = make_message(number, "mine")
    assert ids(get("/v1/messages", live_secret)) == [mine.id]


def test_a_cursor_must_be_a_message_you_can_read_now(get, user, number, live_secret):
    mine = make_message(number, "mine", ago=10)
    theirs = make_message(make_sms_number(UserFactory(), "+442071838760"), ago=5)
    off_number = make_sms_number(user, "+442071838761", shared=False)
    hidden = make_message(off_number, "hidden", ago=5)
    old = make_message(number, "old", ago=4000)
    test_mode = make_message(make_sms_number(user, "+442071838770", livemode=False))
    for cursor in (theirs.id, hidden.id, old.id, test_mode.id, "msg_madeup", "call_x", mine.id + "x"):
        for param in ("starting_after", "ending_before"):
            response = get("/v1/messages", live_secret, **{param: cursor})
            assert_error(response, 400, "invalid_cursor", param=param)
    # A message the filter leaves out still marks a position.
    assert get("/v1/messages", live_secret, starting_after=mine.id, **{"from": "HSBC"}).status_code == 200


# --- Retention ------------------------------------------------------------------------------


def test_purge_deletes_messages_past_retention(user, number, settings):
    from django.core.management import call_command

    keep = make_message(number, "keep", ago=29 * 86400)
    make_message(number, "gone", ago=31 * 86400)
    call_command("purge_messages", stdout=StringIO())
    assert list(Message.objects.values_list("id", flat=True)) == [keep.id]
    settings.MESSAGE_RETENTION_DAYS = 7
    call_command("purge_messages", stdout=StringIO())
    assert not Message.objects.exists()


def test_an_api_key_of_a_stranger_reads_nothing_of_ours(get, user, number):
    make_message(number)
    stranger = UserFactory()
    _key, secret = make_api_key(stranger, scopes=["messages:read", "messages:history"])
    assert ids(get("/v1/messages", secret)) == []
    assert_error(get("/v1/messages", secret, number=number.id), 404, "not_found", param="number")
