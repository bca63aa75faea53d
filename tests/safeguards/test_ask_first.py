"""Ask me first (docs/decisions/user-decides.md): placing a call through a connection with the switch
on waits for the user's yes on a page of APP_URL, signed in, bound to the quote and the connection and
valid while the quote lives; until then 403 user_confirmation_required with confirm_url. A declined
quote cannot be placed. The press-1 still comes last (the call starts in ringing_you). API keys are
never asked."""

import pytest
from django.test import Client

from apps.audit.models import AuditEvent, EventType
from apps.calls.models import Call
from apps.safeguards.models import ConnectionRules, Decision
from tests.calls.callbacks import CALLEE, Placer
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory
from tests.support.oauth import signed_in
from tests.support.safeguards import answer, connect, page_path

pytestmark = pytest.mark.django_db


def placer_for(owner, **fields):
    app, token = connect(owner, **fields)
    return app, Placer(owner, secret=token)


def refused(placer, quote_id):
    error = assert_error(placer.place(quote_id), 403, "user_confirmation_required", param="quote")
    assert error["type"] == "permission_error"
    assert error["confirm_url"].startswith("http://testserver/confirm/")
    assert error["confirm_url"] in error["message"]
    return error


def test_a_self_registered_app_asks_first_and_places_after_the_yes(owner, clock):
    app, placer = placer_for(owner)
    quote = placer.quote(CALLEE).json()
    error = refused(placer, quote["id"])
    assert not Call.objects.exists()

    page = answer(owner, error["confirm_url"]).content.decode()
    assert "You confirmed this." in page

    placed = placer.place(quote["id"])
    assert placed.status_code == 201, placed.content
    assert placed.json()["status"] == "ringing_you"  # your own phone rings first: press 1 comes last
    (event,) = AuditEvent.objects.filter(event_type=EventType.CONNECTION_ACTION_CONFIRMED)
    assert event.client_id == app.client_id and event.actor_id == owner.pk
    assert event.data["summary"] == "confirmed a call to +1 202-555-0100"


def test_the_page_shows_what_is_confirmed(owner, clock):
    _app, placer = placer_for(owner, daily_allowance=100, name="Pocket Assistant")
    quote = placer.quote(CALLEE).json()
    url = refused(placer, quote["id"])["confirm_url"]
    html = signed_in(owner).get(page_path(url)).content.decode()
    for shown in (
        "Pocket Assistant",
        "+1 202-555-0100",
        "Not one of your contacts",
        "$0.06",
        "$1.00 of $1.00",
        "+1 415-555-0123",
        "press 1",
        'value="confirm"',
        'value="decline"',
        "csrfmiddlewaretoken",
    ):
        assert shown in html, shown


def test_a_declined_quote_cannot_be_placed(owner, clock):
    _app, placer = placer_for(owner)
    quote = placer.quote(CALLEE).json()
    url = refused(placer, quote["id"])["confirm_url"]
    assert "You declined this." in answer(owner, url, "decline").content.decode()
    error = assert_error(placer.place(quote["id"]), 403, "user_confirmation_required", param="quote")
    assert error["decision"] == "declined" and "declined" in error["message"]
    assert not Call.objects.exists()
    # Another link for the same quote cannot turn the no into a yes.
    again = signed_in(owner)
    again.post(page_path(url), {"decision": "confirm"})
    assert Decision.objects.get().decision == Decision.DECLINED
    assert AuditEvent.objects.filter(event_type=EventType.CONNECTION_ACTION_DECLINED).count() == 1


def test_a_manual_app_does_not_ask_unless_switched_on(owner, clock):
    app, placer = placer_for(owner, self_registered=False, daily_allowance=2000)
    call = placer.quote_and_place()
    assert call["status"] == "ringing_you"
    placer.end(call["id"])  # its hold held the whole balance
    ConnectionRules.objects.filter(client_id=app.client_id).update(ask_first=True)
    quote = placer.quote("+12025550101").json()
    refused(placer, quote["id"])


def test_switching_ask_first_off_on_connected_apps(owner, clock):
    app, placer = placer_for(owner)
    browser = signed_in(owner)
    browser.post("/settings/connected-apps/rules", {"client_id": app.client_id, "daily_allowance": "500"})
    assert ConnectionRules.objects.get(client_id=app.client_id).ask_first is False
    assert placer.quote_and_place()["status"] == "ringing_you"
    (event,) = AuditEvent.objects.filter(event_type=EventType.CONNECTION_ASK_FIRST_CHANGED)
    assert event.data["summary"] == "turned off asking first"


def test_api_keys_are_never_asked(owner, clock):
    assert Placer(owner).quote_and_place()["status"] == "ringing_you"


def test_the_confirmation_is_bound_to_its_quote(owner, clock):
    _app, placer = placer_for(owner)
    first = placer.quote(CALLEE).json()
    second = placer.quote("+12025550101").json()
    answer(owner, refused(placer, first["id"])["confirm_url"])
    refused(placer, second["id"])  # the yes to the first quote is not a yes to this one
    assert placer.place(first["id"]).status_code == 201


def test_the_confirmation_is_bound_to_its_connection(owner, clock):
    _app, placer = placer_for(owner, name="First App")
    _other, other = placer_for(owner, name="Second App")
    quote = placer.quote(CALLEE).json()
    answer(owner, refused(placer, quote["id"])["confirm_url"])
    # The quote belongs to the account; another app's connection placing it needs its own yes.
    refused(other, quote["id"])
    assert placer.place(quote["id"]).status_code == 201


def test_a_link_is_only_for_its_own_account_and_cannot_be_altered(owner, clock):
    _app, placer = placer_for(owner)
    quote = placer.quote(CALLEE).json()
    path = page_path(refused(placer, quote["id"])["confirm_url"])
    stranger = signed_in(UserFactory(email="stranger@example.com"))
    assert stranger.get(path).status_code == 404
    assert stranger.post(path, {"decision": "confirm"}).status_code == 404
    assert signed_in(owner).get(path[:-3] + "abc").status_code == 404
    anonymous = Client().get(path)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/login")
    assert not Decision.objects.exists()


def test_the_form_needs_its_csrf_token(owner, clock):
    _app, placer = placer_for(owner)
    quote = placer.quote(CALLEE).json()
    path = page_path(refused(placer, quote["id"])["confirm_url"])
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(owner)
    assert browser.post(path, {"decision": "confirm"}).status_code == 403
    assert not Decision.objects.exists()


def test_the_page_is_valid_while_the_quote_lives(owner, clock):
    _app, placer = placer_for(owner)
    quote = placer.quote(CALLEE).json()
    path = page_path(refused(placer, quote["id"])["confirm_url"])
    clock.tick(600)
    browser = signed_in(owner)
    page = browser.get(path).content.decode()
    assert "This quote expired" in page and 'value="confirm"' not in page
    browser.post(path, {"decision": "confirm"})
    assert not Decision.objects.exists()
    assert_error(placer.place(quote["id"]), 410, "quote_expired", param="quote")


def test_a_used_quote_answers_quote_used_first(owner, clock):
    _app, placer = placer_for(owner)
    quote = placer.quote(CALLEE).json()
    answer(owner, refused(placer, quote["id"])["confirm_url"])
    assert placer.place(quote["id"]).status_code == 201
    assert_error(placer.place(quote["id"]), 409, "quote_used", param="quote")
