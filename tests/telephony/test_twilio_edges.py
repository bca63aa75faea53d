"""The Twilio adapter's edges: callbacks Twilio did not sign, Twilio's refusals as the contract's codes,
inbound SMS, the fake held to Twilio's description, and test mode never leaving the simulator."""

import logging
from urllib.parse import urlencode

import pytest
from django.test import Client

from apps.billing.models import Hold
from apps.calls.models import Call, Quote
from apps.messages.models import Message
from tests.calls.callbacks import YOUR_PHONE, Placer, ready
from tests.messages.factories import make_sms_number
from tests.support.twilio_fake import path_of

ANSWERS = "+12025550100"


# --- signatures ---------------------------------------------------------------------------------------


def post(url, params, signature=None):
    headers = {"X-Twilio-Signature": signature} if signature is not None else {}
    return Client(enforce_csrf_checks=True).post(
        path_of(url), urlencode(params), content_type="application/x-www-form-urlencoded", headers=headers
    )


@pytest.mark.parametrize("signature", [None, "", "bm90IHR3aWxpbydzIHNpZ25hdHVyZQ=="])
def test_a_callback_without_twilios_signature_changes_nothing_and_is_logged_once(
    user, on_twilio, settings, caplog, signature
):
    ready(user)
    placer = Placer(user)
    call = placer.quote_and_place(ANSWERS)
    url = f"{settings.BASE_URL}/carrier/twilio/status?call={call['id']}"
    params = {"AccountSid": on_twilio.fake.account_sid, "CallSid": "CA" + "1" * 32, "CallStatus": "busy"}
    with caplog.at_level(logging.WARNING, logger="apps.telephony.views"):
        response = post(url, params, signature)
    assert response.status_code == 403 and response["Content-Type"] == "application/json"
    assert len([r for r in caplog.records if r.name == "apps.telephony.views"]) == 1
    on_twilio.wait(1)
    assert placer.read(call)["status"] == "ringing_you"


def test_a_callback_signed_for_another_address_or_account_is_refused(user, on_twilio, settings):
    from twilio.request_validator import RequestValidator

    ready(user)
    placer = Placer(user)
    call = placer.quote_and_place(ANSWERS)
    validator = RequestValidator(on_twilio.fake.auth_token)
    params = {"AccountSid": on_twilio.fake.account_sid, "CallStatus": "busy"}
    signed_for = f"{settings.BASE_URL}/carrier/twilio/status?call=call_someone_else"
    url = f"{settings.BASE_URL}/carrier/twilio/status?call={call['id']}"
    assert post(url, params, validator.compute_signature(signed_for, params)).status_code == 403
    other = {**params, "AccountSid": "AC" + "9" * 32}
    assert post(url, other, validator.compute_signature(url, other)).status_code == 403
    assert placer.read(call)["status"] == "ringing_you"


# --- refusals -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "twilio_status, twilio_code, status, code, param, words",
    [
        (400, 21211, 400, "invalid_request", "quote", "not a valid phone number"),
        (400, 21210, 400, "invalid_request", "quote", "not verified"),
        (400, 21215, 422, "destination_not_allowed", "quote", "geographic permissions"),
        (401, 20003, 503, "service_unavailable", None, "not in service"),
        (429, 20429, 503, "service_unavailable", None, "busy right now"),
    ],
)
def test_twilios_refusals_are_the_contracts_codes_and_write_nothing(
    user, on_twilio, twilio_status, twilio_code, status, code, param, words
):
    ready(user)
    placer = Placer(user)
    quote = placer.quote(ANSWERS).json()
    on_twilio.fake.refuse_next_create = (twilio_status, twilio_code, "Twilio's own words")
    refused = placer.place(quote["id"])
    assert refused.status_code == status, refused.content
    error = refused.json()["error"]
    assert (error["code"], error.get("param")) == (code, param)
    assert words in error["message"]
    if status == 503:
        assert int(refused["Retry-After"]) >= 1
    assert not Call.objects.exists() and not Hold.objects.exists()
    assert Quote.objects.get(pk=quote["id"]).call_id in ("", None)
    placed = placer.place(quote["id"])  # the same quote, once Twilio takes it
    assert placed.status_code == 201 and placed.json()["status"] == "ringing_you"


def test_twilio_unreachable_is_503_and_writes_nothing(user, on_twilio, settings):
    ready(user)
    placer = Placer(user)
    quote = placer.quote(ANSWERS).json()
    on_twilio.fake.stop()
    refused = placer.place(quote["id"])
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "service_unavailable"
    assert not Call.objects.exists()


# --- messages -----------------------------------------------------------------------------------------


def test_an_sms_twilio_sends_twice_is_stored_once(user, on_twilio):
    number = make_sms_number(user, "+14155550177")
    on_twilio.fake.delivery = "duplicated"
    on_twilio.sms(number=number, sender="+447700900123", body="Your code is 424242")
    assert list(Message.objects.values_list("body", flat=True)) == ["Your code is 424242"]


def test_an_sms_to_a_number_of_no_account_is_dropped(user, on_twilio):
    make_sms_number(user, "+14155550177")
    on_twilio.fake.send_sms(to="+14155550999", sender="+447700900123", body="hello")
    on_twilio.wait(1)
    assert not Message.objects.exists()


# --- the fake holds the adapter to Twilio's description ----------------------------------------------


def test_the_fake_refuses_what_twilios_description_does_not_allow(twilio):
    from twilio.base.exceptions import TwilioRestException

    from apps.telephony.carriers.twilio.conf import rest_client

    with pytest.raises(TwilioRestException) as refused:
        rest_client().calls.create(to=YOUR_PHONE, from_="+14155550100", twiml="<Response/>", timeout="soon")
    assert refused.value.code == 20001 and "Timeout" in refused.value.msg
    with pytest.raises(TwilioRestException):
        rest_client().calls("CA" + "0" * 32).update(status="hung-up")
    assert len(twilio.violations) == 2
    twilio.violations.clear()


def test_the_description_names_its_source():
    from tests.support.twilio_fake import spec

    assert all(
        source.startswith("https://github.com/twilio/twilio-oai/blob/") and "/spec/json/" in source
        for source in spec.sources()
    )
    used = {op.operation_id for op in spec.OPERATIONS}
    assert used == {
        "CreateCall",
        "ListCall",
        "FetchCall",
        "UpdateCall",
        "ListCallRecording",
        "CreateTranscript",
        "FetchTranscript",
        "ListSentence",
        "ListOperatorResult",
    }


# --- modes --------------------------------------------------------------------------------------------


def test_test_mode_stays_on_the_simulator(user, twilio):
    ready(user, livemode=False)
    placer = Placer(user, livemode=False)
    call = placer.quote_and_place(ANSWERS)
    assert Call.objects.get(pk=call["id"]).carrier == "simulated"
    assert twilio.requests == []


def test_an_operators_own_message_to_a_live_number_goes_through_the_same_boundary(user, twilio):
    from apps.messages.services import message_arrive

    number = make_sms_number(user, "+14155550177")
    message = message_arrive(number=number, sender="+447700900123", body="Your code is 424242")
    assert message is not None and message.body == "Your code is 424242" and message.livemode


def test_the_fakes_answers_are_held_to_the_description_too():
    from tests.support.twilio_fake import spec
    from tests.support.twilio_fake.resources import ACCOUNT_SID

    document = spec.document_of("twilio_api_v2010.subset.json")
    with pytest.raises(AssertionError, match="status='hung-up' is not one of"):
        spec.shaped(document, "api.v2010.account.call", {"account_sid": ACCOUNT_SID, "status": "hung-up"})
    with pytest.raises(AssertionError, match="not an RFC 2822 date"):
        spec.shaped(document, "api.v2010.account.call", {"date_created": "2026-11-28T10:00:00Z"})


def test_svc_place_call_tells_the_assistant_what_twilios_refusal_asks(user, on_twilio, settings):
    from tests.support.mcp import McpClient, install_fake_tokens

    ready(user)
    mcp = McpClient(install_fake_tokens(settings).issue(user, scopes=frozenset({"calls:place", "calls:read"})))

    def tool(name, arguments):
        return mcp.request("tools/call", {"name": name, "arguments": arguments}).json()["result"]

    quote = tool("svc_quote_call", {"to": ANSWERS})["structuredContent"]
    on_twilio.fake.refuse_next_create = (400, 21210, "The source phone number provided is not yet verified")
    refused = tool("svc_place_call", {"quote_id": quote["id"]})
    assert refused["isError"] is True and "not verified" in refused["content"][0]["text"]
    placed = tool("svc_place_call", {"quote_id": quote["id"]})
    assert placed["isError"] is False and placed["structuredContent"]["status"] == "ringing_you"
