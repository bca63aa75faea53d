"""The per-number sharing switch (docs/spec.md 5.13): `messages_opt_in`, off by default, shown per number
on the sharing screen, set there through number_set_messages_opt_in, audited, CSRF-protected."""

import pytest
from django.test import Client

from apps.accounts.models import SharingSettings
from apps.audit.models import AuditEvent, EventType
from apps.numbers.models import Number
from apps.numbers.services import NumberNotFound, number_set_messages_opt_in
from tests.support.factories import UserFactory, make_api_key

from .factories import make_number as rent

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(user):
    client = Client()
    client.force_login(user)
    return client


def make_number(user, number="+442071838750", **fields):
    """A number that can receive SMS: the only kind the sharing screen offers a switch for."""
    fields.setdefault("sms", True)
    return rent(user, number, **fields)


def opt_in_of(number) -> bool:
    return Number.objects.get(pk=number.pk).messages_opt_in


def test_a_number_is_off_by_default(user):
    assert make_number(user).messages_opt_in is False


def test_the_page_shows_each_active_number_of_both_modes_unticked(user, browser):
    london = make_number(user, "+442071838750", label="London office")
    berlin = make_number(user, "+493012345678")
    canceled = make_number(user, "+442071838751", status="canceled")
    test_mode = make_number(user, "+442071838752", livemode=False)
    others = make_number(UserFactory(), "+442071838753")
    html = browser.get("/settings/sharing").content.decode()
    assert f'name="messages_opt_in" value="{london.id}"' in html
    # As people read a number, E.164 kept in its title.
    assert 'title="+442071838750 (at home: 020 7183 8750)">+44 20 7183 8750</span> (London office)' in html
    assert f'name="messages_opt_in" value="{berlin.id}"' in html
    # Test-mode numbers are listed too, marked.
    assert f'value="{test_mode.id}" > <span><span class="phone nowrap" data-e164="+442071838752"' in html
    assert '+44 20 7183 8752</span> <span class="muted">test mode</span>' in html
    for hidden in (canceled, others):
        assert hidden.id not in html
    assert "checked" not in html


def test_an_account_without_numbers_is_told_so(browser):
    assert "You have no active virtual number." in browser.get("/settings/sharing").content.decode()


def test_ticking_a_number_turns_its_switch_on_and_unticking_off(user, browser):
    london, berlin = make_number(user, "+442071838750"), make_number(user, "+493012345678")
    shown = [london.id, berlin.id]
    response = browser.post("/settings/sharing", {"numbers_shown": shown, "messages_opt_in": [berlin.id]})
    assert response.status_code == 302
    assert (opt_in_of(london), opt_in_of(berlin)) == (False, True)
    html = browser.get("/settings/sharing").content.decode()
    assert f'value="{berlin.id}" checked' in html and f'value="{london.id}" checked' not in html
    browser.post("/settings/sharing", {"numbers_shown": shown})
    assert (opt_in_of(london), opt_in_of(berlin)) == (False, False)


def test_the_account_switches_are_saved_with_them(user, browser):
    number = make_number(user)
    browser.post(
        "/settings/sharing", {"call_summaries": "on", "numbers_shown": [number.id], "messages_opt_in": [number.id]}
    )
    stored = SharingSettings.objects.get(user=user)
    assert (stored.call_summaries, stored.message_reading, opt_in_of(number)) == (True, False, True)


def test_a_number_the_page_did_not_show_keeps_its_switch(user, browser):
    shown, newer = make_number(user, "+442071838750"), make_number(user, "+442071838751")
    Number.objects.filter(pk=newer.pk).update(messages_opt_in=True)
    browser.post("/settings/sharing", {"numbers_shown": [shown.id]})
    assert opt_in_of(newer) is True


def test_another_accounts_number_cannot_be_switched(user, browser):
    others = make_number(UserFactory(), "+442071838753")
    response = browser.post("/settings/sharing", {"numbers_shown": [others.id], "messages_opt_in": [others.id]})
    assert response.status_code == 302
    assert opt_in_of(others) is False
    assert not AuditEvent.objects.filter(data__number_id=others.id).exists()


def test_each_change_is_audited_once_and_no_change_not_at_all(user, browser):
    number = make_number(user)
    form = {"numbers_shown": [number.id], "messages_opt_in": [number.id]}
    browser.post("/settings/sharing", form)
    browser.post("/settings/sharing", form)
    (event,) = AuditEvent.objects.filter(data__number_id=number.id)
    assert event.event_type == EventType.SHARING_UPDATED
    assert event.data == {"number_id": number.id, "number": "+442071838750", "messages_opt_in": True}
    assert (event.actor_type, event.actor_id, event.user_id) == ("user", user.pk, user.pk)
    browser.post("/settings/sharing", {"numbers_shown": [number.id]})
    off = AuditEvent.objects.filter(data__number_id=number.id).order_by("-created", "-id").first()
    assert off.data["messages_opt_in"] is False
    assert AuditEvent.objects.filter(data__number_id=number.id).count() == 2


def test_the_toggle_is_csrf_protected(user):
    number = make_number(user)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    response = browser.post("/settings/sharing", {"numbers_shown": [number.id], "messages_opt_in": [number.id]})
    assert response.status_code == 403
    assert opt_in_of(number) is False
    assert not AuditEvent.objects.exists()


def test_the_page_needs_sign_in(user):
    number = make_number(user)
    response = Client().post("/settings/sharing", {"numbers_shown": [number.id], "messages_opt_in": [number.id]})
    assert response.status_code == 302 and response["Location"].startswith("/login")
    assert opt_in_of(number) is False


def test_the_service_refuses_non_booleans_and_unknown_numbers(user):
    number = make_number(user)
    with pytest.raises(TypeError):
        number_set_messages_opt_in(user=user, number_id=number.id, value="on")
    for number_id in ("num_nosuchnumber000000000000", "num_a-b", make_number(UserFactory()).id):
        with pytest.raises(NumberNotFound):
            number_set_messages_opt_in(user=user, number_id=number_id, value=True)
    assert opt_in_of(number) is False
    assert not AuditEvent.objects.exists()


def test_the_switch_gates_nothing_yet_but_the_api_shows_it(user, client):
    number = make_number(user)
    number_set_messages_opt_in(user=user, number_id=number.id, value=True)
    _key, secret = make_api_key(user, scopes=["numbers:read"])
    body = client.get(f"/v1/numbers/{number.id}", HTTP_AUTHORIZATION=f"Bearer {secret}").json()
    assert body["messages_opt_in"] is True


def test_a_number_that_cannot_receive_sms_is_listed_without_a_switch(user, browser):
    voice_only = make_number(user, "+442071838759", sms=False)
    html = browser.get("/settings/sharing").content.decode()
    assert f'value="{voice_only.id}"' not in html
    assert "+44 20 7183 8759</span>: cannot receive SMS, so it has no messages to share." in html
    # Not offered, so not switched, even by a hand-made form.
    browser.post("/settings/sharing", {"numbers_shown": [voice_only.id], "messages_opt_in": [voice_only.id]})
    assert opt_in_of(voice_only) is False
