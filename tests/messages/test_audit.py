"""Messages read through an app or key are audit events, shown on Activity ("read 2 messages of
+44 20 7183 8750"; docs/design.md, Phase 3). Ids and counts only: a body or a code never reaches the log."""

import pytest

from apps.audit.models import AuditEvent, EventType
from tests.support.factories import make_api_key
from tests.support.mcp import McpClient, install_fake_tokens
from tests.support.oauth import signed_in

from .factories import make_message, make_sms_number

pytestmark = pytest.mark.django_db


def reads():
    return list(AuditEvent.objects.filter(event_type=EventType.MESSAGES_READ).order_by("created"))


def test_a_key_reading_two_messages_is_one_event_naming_the_number(client, user):
    number = make_sms_number(user)
    make_message(number, "Your code is 123456", ago=20)
    make_message(number, "hello", ago=10)
    key, secret = make_api_key(user, scopes=["messages:read"])
    assert client.get("/v1/messages", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200
    (event,) = reads()
    assert event.user_id == user.pk and event.key_id == key.id and event.client_id == ""
    assert event.data == {
        "summary": "read 2 messages of +44 20 7183 8750",
        "number": "+442071838750",
        "count": 2,
        "livemode": True,
    }
    assert "123456" not in str(event.data)
    page = signed_in(user).get("/settings/activity").content.decode()
    assert "Read 2 messages of +44 20 7183 8750" in page


def test_an_app_reading_through_the_tool_is_an_event_of_that_app(settings, user):
    number = make_sms_number(user)
    make_message(number, "Your code is 123456")
    mcp = McpClient(install_fake_tokens(settings).issue(user, scopes=frozenset({"messages:read"})))
    mcp.request("tools/call", {"name": "svc_read_messages", "arguments": {}})
    (event,) = reads()
    assert event.client_id == "dcr_test" and event.actor_type == "client"
    assert event.data["summary"] == "read 1 message of +44 20 7183 8750"


def test_a_read_by_id_is_an_event_and_an_empty_read_is_none(client, user):
    number = make_sms_number(user)
    _key, secret = make_api_key(user, scopes=["messages:read"])
    assert client.get("/v1/messages", HTTP_AUTHORIZATION=f"Bearer {secret}").json()["data"] == []
    assert reads() == []
    message = make_message(number)
    assert client.get(f"/v1/messages/{message.id}", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200
    assert [e.data["count"] for e in reads()] == [1]
