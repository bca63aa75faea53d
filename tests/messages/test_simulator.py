"""The simulator's ways in (docs/design.md, Phase 3): the test helper ``POST /v1/test_helpers/messages``
``{number, from, body}`` ("a test-mode key; a live credential gets 403 ``forbidden``; 201 with the
message") and ``manage.py sim_sms --email E --number +E164 --from F --body B [--ago SECONDS] [--test]``."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from apps.messages.models import Message
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory, make_api_key
from tests.support.mcp import install_fake_tokens

from .factories import make_sms_number

pytestmark = pytest.mark.django_db
PATH = "/v1/test_helpers/messages"


def post(client, secret, data, **headers):
    return client.post(PATH, data, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {secret}", **headers)


@pytest.fixture
def test_number(user):
    return make_sms_number(user, "+12025550199", livemode=False, shared=False)


def test_a_test_key_delivers_a_message(client, user, test_number):
    _key, secret = make_api_key(user, scopes=["rates:read"], livemode=False)
    response = post(client, secret, {"number": test_number.id, "from": "+12025550151", "body": "Your code is 1234"})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["object"] == "message" and body["livemode"] is False and body["number"] == test_number.id
    assert body["one_time_code"] == {"code": "1234", "domain": None}
    assert Message.objects.get(pk=body["id"]).user_id == user.pk


def test_the_number_may_be_given_in_e164(client, user, test_number):
    _key, secret = make_api_key(user, livemode=False)
    response = post(client, secret, {"number": "+12025550199", "from": "HSBC", "body": "hi"})
    assert response.status_code == 201, response.content


def test_a_live_key_is_forbidden_and_writes_nothing(client, user, test_number):
    live_number = make_sms_number(user, "+12025550198")
    _key, secret = make_api_key(user, scopes=["messages:read"])
    for number in (live_number.id, test_number.id):
        response = post(client, secret, {"number": number, "from": "+12025550150", "body": "x"})
        assert_error(response, 403, "forbidden", type_="permission_error")
    assert not Message.objects.exists()


def test_an_oauth_token_is_live_and_forbidden(client, user, settings, test_number):
    secret = install_fake_tokens(settings).issue(user, resource="http://testserver/v1")
    response = post(client, secret, {"number": test_number.id, "from": "+12025550150", "body": "x"})
    assert_error(response, 403, "forbidden")


def test_another_accounts_number_is_not_found(client, user):
    theirs = make_sms_number(UserFactory(), "+12025550197", livemode=False)
    _key, secret = make_api_key(user, livemode=False)
    response = post(client, secret, {"number": theirs.id, "from": "+12025550150", "body": "x"})
    assert_error(response, 404, "not_found", param="number")
    assert not Message.objects.exists()


@pytest.mark.parametrize(
    ("data", "param"),
    [
        ({"from": "+12025550150", "body": "x"}, "number"),
        ({"number": "NUM", "body": "x"}, "from"),
        ({"number": "NUM", "from": "+12025550150"}, "body"),
        ({"number": "NUM", "from": "+12025550150", "body": ""}, "body"),
        ({"number": "NUM", "from": "+12025550150", "body": "x" * 1601}, "body"),
        ({"number": "NUM", "from": "<not a sender>", "body": "x"}, "from"),
        ({"number": "NUM", "from": 5, "body": "x"}, "from"),
    ],
)
def test_bad_input_is_invalid_request_and_writes_nothing(client, user, test_number, data, param):
    _key, secret = make_api_key(user, livemode=False)
    data = {k: (test_number.id if v == "NUM" else v) for k, v in data.items()}
    assert_error(post(client, secret, data), 400, "invalid_request", param=param)
    assert not Message.objects.exists()


def test_a_number_without_sms_is_refused(client, user):
    from tests.numbers.factories import make_number

    voice_only = make_number(user, "+12025550196", livemode=False, sms=False)
    _key, secret = make_api_key(user, livemode=False)
    response = post(client, secret, {"number": voice_only.id, "from": "+12025550150", "body": "x"})
    assert_error(response, 400, "invalid_request", param="number")


def test_an_idempotent_retry_delivers_once(client, user, test_number):
    _key, secret = make_api_key(user, livemode=False)
    data = {"number": test_number.id, "from": "+12025550150", "body": "once"}
    first = post(client, secret, data, HTTP_IDEMPOTENCY_KEY="k1")
    again = post(client, secret, data, HTTP_IDEMPOTENCY_KEY="k1")
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert Message.objects.count() == 1


# --- manage.py sim_sms ------------------------------------------------------------------------


def test_sim_sms_delivers_now_or_earlier_and_keeps_the_code_out_of_its_output(user):
    number = make_sms_number(user, "+12025550195", shared=False)
    out = StringIO()
    call_command(
        "sim_sms", "--email", user.email, "--number", "+12025550195", "--from", "+12025550150",
        "--body", "Your Demo code is 123456.", "--ago", "600", stdout=out,
    )  # fmt: skip
    message = Message.objects.get()
    assert message.number_id == number.id and message.livemode is True and message.code == "123456"
    assert 590 <= (timezone.now() - message.created).total_seconds() <= 660
    assert message.id in out.getvalue() and "123456" not in out.getvalue()


def test_sim_sms_test_mode(user):
    make_sms_number(user, "+12025550195", livemode=False)
    call_command(
        "sim_sms", "--email", user.email, "--number", "+12025550195", "--from", "HSBC", "--body", "hi", "--test",
        stdout=StringIO(),
    )  # fmt: skip
    assert Message.objects.get().livemode is False


@pytest.mark.parametrize(
    "args",
    [
        ["--email", "nobody@example.com", "--number", "+12025550195", "--from", "X", "--body", "hi"],
        ["--email", "ada@example.com", "--number", "+12025550100", "--from", "X", "--body", "hi"],
        ["--email", "ada@example.com", "--number", "12025550195", "--from", "X", "--body", "hi"],
        ["--email", "ada@example.com", "--number", "+12025550195", "--from", "X", "--body", "hi", "--test"],
        ["--email", "ada@example.com", "--number", "+12025550195", "--from", "X", "--body", ""],
        ["--email", "ada@example.com", "--number", "+12025550195", "--from", "X", "--body", "hi", "--ago", "-1"],
    ],
)
def test_sim_sms_refuses_bad_arguments(user, args):
    make_sms_number(user, "+12025550195")
    with pytest.raises(CommandError):
        call_command("sim_sms", *args, stdout=StringIO())
    assert not Message.objects.exists()


def test_the_simulators_code_sender_texts_its_fixed_code_through_the_carrier_boundary(client, user, test_number):
    """The helper's message goes through the carrier of its mode, as a carrier's would: the
    simulator gives its code sender (+1 202 555 0150, on /docs/calls) its fixed text."""
    from apps.telephony import simulator

    _key, secret = make_api_key(user, livemode=False)
    response = post(client, secret, {"number": test_number.id, "from": simulator.CODE_SENDER, "body": "anything"})
    assert response.status_code == 201, response.content
    assert Message.objects.get(pk=response.json()["id"]).body == simulator.CODE_BODY
    assert response.json()["one_time_code"] == {"code": "123456", "domain": "demo.example"}


def test_a_carriers_message_event_reaches_the_number_it_names_and_an_unknown_one_is_dropped(user, test_number):
    """The receiver of the carrier's message events (settings.TELEPHONY_RECEIVERS): a carrier names our
    number by its E.164 in the event's mode; a number not in service gets nothing and nothing fails."""
    from django.utils import timezone

    from apps.telephony import events as ev

    def event(to):
        return ev.CarrierEvent(
            ev.MESSAGE, ev.MESSAGE_RECEIVED, to, timezone.now(), False, {"from": "HSBC", "body": "hi"}
        )

    delivered = ev.deliver(event(test_number.number))
    assert delivered.number_id == test_number.id and delivered.body == "hi"
    assert ev.deliver(event("+12025550111")) is None
    assert Message.objects.count() == 1


# --- the code sender through manage.py sim_sms --------------------------------------------------


def test_sim_sms_from_the_code_sender_needs_no_body(user):
    from apps.telephony import simulator

    make_sms_number(user, "+12025550195")
    out = StringIO()
    call_command("sim_sms", "--email", user.email, "--number", "+12025550195", "--from", "+12025550150", stdout=out)
    assert Message.objects.get().body == simulator.CODE_BODY
    assert "not the --body given" not in out.getvalue()


def test_sim_sms_says_when_the_code_sender_replaces_the_body_given(user):
    """The simulator's code sender always texts its demo code: a --body given is not what arrives, and
    the command says so instead of delivering something else in silence."""
    from apps.telephony import simulator

    make_sms_number(user, "+12025550195")
    out = StringIO()
    call_command(
        "sim_sms", "--email", user.email, "--number", "+12025550195", "--from", "+12025550150", "--body", "hello",
        stdout=out,
    )  # fmt: skip
    assert Message.objects.get().body == simulator.CODE_BODY
    said = out.getvalue()
    assert "not the --body given" in said and "+1 202-555-0150" in said and "/docs/calls" in said


def test_sim_sms_from_anyone_else_needs_a_body(user):
    make_sms_number(user, "+12025550195")
    with pytest.raises(CommandError, match="--body is required"):
        call_command("sim_sms", "--email", user.email, "--number", "+12025550195", "--from", "HSBC", stdout=StringIO())
    assert not Message.objects.exists()
