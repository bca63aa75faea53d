"""expand[]=transcript and expand[]=contact on both call endpoints (docs/design.md, Phase 2).

transcript needs transcripts:read (else 403 insufficient_scope naming it) and the
account's call-summaries switch (off: 403 forbidden, param expand, naming the
setting). contact needs contacts:read. Unknown expansions are 400.
"""

import pytest
from django.conf import settings

from apps.accounts.models import SharingSettings
from apps.core.timefmt import unix_seconds
from tests.calls.factories import CallFactory, TranscriptFactory, make_contact
from tests.calls.shapes import TRANSCRIPT_FIELDS
from tests.contacts.factories import make_contact as make_full_contact
from tests.support.envelope import assert_error

pytestmark = pytest.mark.django_db


def challenge(scope):
    return (
        f'Bearer error="insufficient_scope", scope="{scope}", '
        'resource_metadata="http://testserver/.well-known/oauth-protected-resource/v1"'
    )


@pytest.fixture
def call(owner):
    return CallFactory(user=owner)


@pytest.fixture
def transcript(call):
    return TranscriptFactory(call=call)


def both(caller, call, expand):
    """The list's first item and the detail, with the same expansions."""
    listed = caller.get("/v1/calls", {"expand[]": expand})
    detail = caller.get(f"/v1/calls/{call.id}", {"expand[]": expand})
    return listed, detail


# --- transcript -----------------------------------------------------------------------------


def test_expanded_transcript_is_the_transcript_object(caller, call, transcript, summaries_on):
    listed, detail = both(caller, call, ["transcript"])
    assert listed.status_code == 200, listed.content
    assert detail.status_code == 200, detail.content
    expected = {
        "id": transcript.id,
        "object": "transcript",
        "call": call.id,
        "summary": transcript.summary,
        "action_items": ["Call Ana back if the delivery slips"],
        "reference_numbers": ["ORD-48213"],
        "language": "en",
        # Made without a request (phase 2's): completed when made, its price not on record.
        "status": "completed",
        "failure_reason": None,
        "amount": None,
        "currency": None,
        "completed_at": unix_seconds(transcript.created),
        "created": unix_seconds(transcript.created),
        "livemode": True,
    }
    assert set(expected) == TRANSCRIPT_FIELDS
    assert listed.json()["data"][0]["transcript"] == expected
    assert detail.json()["transcript"] == expected


def test_a_call_without_transcript_expands_to_null(caller, call, summaries_on):
    listed, detail = both(caller, call, ["transcript"])
    assert listed.json()["data"][0]["transcript"] is None
    assert detail.json()["transcript"] is None


def test_transcript_expansion_needs_transcripts_read(caller_for, call, transcript, summaries_on):
    without = caller_for(["calls:read", "contacts:read"])
    for response in both(without, call, ["transcript"]):
        error = assert_error(response, 403, "insufficient_scope", param="expand", type_="permission_error")
        assert response["WWW-Authenticate"] == challenge("transcripts:read")
        assert "transcripts:read" in error["message"]


def test_transcript_expansion_needs_the_call_summaries_switch(caller, call, transcript):
    for response in both(caller, call, ["transcript"]):
        error = assert_error(response, 403, "forbidden", param="expand", type_="permission_error")
        assert "call summaries" in error["message"]
        assert "Let connected apps read AI summaries of my calls" in error["message"]
        assert f"{settings.APP_URL}/settings/sharing" in error["message"]
        assert "WWW-Authenticate" not in response


def test_the_switch_turned_off_again_refuses_again(caller, owner, call, transcript, summaries_on):
    assert both(caller, call, ["transcript"])[1].status_code == 200
    SharingSettings.objects.filter(user=owner).update(call_summaries=False)
    assert_error(both(caller, call, ["transcript"])[1], 403, "forbidden", param="expand")


def test_the_switch_is_the_callers_account_not_another(caller, stranger, call, transcript):
    SharingSettings.objects.create(user=stranger, call_summaries=True)
    assert_error(both(caller, call, ["transcript"])[0], 403, "forbidden", param="expand")


def test_without_expansion_the_transcript_is_an_id_whatever_the_switch(caller_for, call, transcript):
    only = caller_for(["calls:read"])
    listed, detail = both(only, call, [])
    assert listed.json()["data"][0]["transcript"] == transcript.id
    assert detail.json()["transcript"] == transcript.id


# --- contact --------------------------------------------------------------------------------


def test_expanded_contact_is_the_whole_contact_as_its_own_endpoint_writes_it(caller, owner):
    # As Stripe's expansion: the object GET /v1/contacts/{id} answers, numbers, created and livemode included.
    contact = make_full_contact(owner, "Ana Lopez", (("+34612345678", "mobile"), ("+442071838750", "work")))
    call = CallFactory(user=owner, contact_id=contact.id)
    listed, detail = both(caller, call, ["contact"])
    expected = caller.get(f"/v1/contacts/{contact.id}").json()
    assert expected == {
        "id": contact.id,
        "object": "contact",
        "name": "Ana Lopez",
        "phone_numbers": [
            {"number": "+34612345678", "label": "mobile", "country": "ES"},
            {"number": "+442071838750", "label": "work", "country": "GB"},
        ],
        "created": unix_seconds(contact.created),
        "livemode": True,
    }
    assert listed.json()["data"][0]["contact"] == expected
    assert detail.json()["contact"] == expected


def test_a_page_expands_each_contact_of_its_calls(caller, owner):
    ana = make_full_contact(owner, "Ana Lopez", (("+34612345678", "mobile"),))
    bo = make_full_contact(owner, "Bo Berg", ())  # a contact without numbers expands too
    for contact in (ana, bo, ana):
        CallFactory(user=owner, contact_id=contact.id)
    CallFactory(user=owner)
    listed = caller.get("/v1/calls", {"expand[]": "contact"}).json()["data"]
    names = sorted((item["contact"] or {}).get("name", "") for item in listed)
    assert names == ["", "Ana Lopez", "Ana Lopez", "Bo Berg"]
    assert (
        next(item["contact"] for item in listed if item["contact"] and item["contact"]["name"] == "Bo Berg")[
            "phone_numbers"
        ]
        == []
    )


def test_a_call_without_contact_expands_to_null(caller, call):
    listed, detail = both(caller, call, ["contact"])
    assert listed.json()["data"][0]["contact"] is None
    assert detail.json()["contact"] is None


def test_a_deleted_contact_expands_to_a_deleted_stub(caller, owner):
    contact = make_contact(owner)
    call = CallFactory(user=owner, contact_id=contact.id)
    contact_id = contact.id
    contact.delete()
    assert both(caller, call, ["contact"])[1].json()["contact"] == {
        "id": contact_id,
        "object": "contact",
        "deleted": True,
    }


def test_another_accounts_or_modes_contact_never_lends_its_name(caller, owner, stranger):
    theirs = make_contact(stranger, "Secret Name")
    test_mode = make_contact(owner, "Test Name", livemode=False)
    one = CallFactory(user=owner, contact_id=theirs.id)
    two = CallFactory(user=owner, contact_id=test_mode.id)
    for call in (one, two):
        contact = caller.get(f"/v1/calls/{call.id}", {"expand[]": "contact"}).json()["contact"]
        assert contact.get("deleted") is True
        assert "name" not in contact


def test_contact_expansion_needs_contacts_read(caller_for, owner):
    contact = make_contact(owner)
    call = CallFactory(user=owner, contact_id=contact.id)
    without = caller_for(["calls:read", "transcripts:read"])
    for response in both(without, call, ["contact"]):
        assert_error(response, 403, "insufficient_scope", param="expand")
        assert response["WWW-Authenticate"] == challenge("contacts:read")
    # Unexpanded, the same credential lists the call with the contact's id and no name.
    listed, detail = both(without, call, [])
    assert listed.json()["data"][0]["contact"] == contact.id
    assert detail.json()["contact"] == contact.id
    assert b"Ana Lopez" not in listed.content + detail.content


# --- both, and bad values -------------------------------------------------------------------


def test_both_expansions_together(caller, owner, summaries_on):
    contact = make_contact(owner, "Ana Lopez")
    call = CallFactory(user=owner, contact_id=contact.id)
    transcript = TranscriptFactory(call=call)
    listed, detail = both(caller, call, ["transcript", "contact"])
    for body in (listed.json()["data"][0], detail.json()):
        assert body["contact"]["name"] == "Ana Lopez"
        assert body["transcript"]["id"] == transcript.id


def test_expand_without_brackets_is_read_too(caller, owner):
    contact = make_contact(owner, "Ana Lopez")
    call = CallFactory(user=owner, contact_id=contact.id)
    assert caller.get(f"/v1/calls/{call.id}", {"expand": "contact"}).json()["contact"]["name"] == "Ana Lopez"
    listed = caller.get("/v1/calls?expand=contact").json()["data"]
    assert listed[0]["contact"]["name"] == "Ana Lopez"
    assert listed[0]["contact"]["livemode"] is True


@pytest.mark.parametrize("value", ["transcripts", "contacts", "data.transcript", "", "user", "Transcript"])
def test_an_unknown_expansion_is_400(caller, call, value):
    for response in both(caller, call, [value]):
        error = assert_error(response, 400, "invalid_request", param="expand")
        assert "contact, transcript" in error["message"]


def test_an_unknown_expansion_is_400_before_scope_checks(caller_for, call):
    only = caller_for(["calls:read"])
    assert_error(only.get("/v1/calls", {"expand[]": ["transcript", "bogus"]}), 400, "invalid_request", param="expand")
