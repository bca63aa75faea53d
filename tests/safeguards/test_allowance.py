"""An allowance per app (docs/decisions/user-decides.md): chosen at consent when calls:place is
granted ($1, $5 by default, $20), shown and changed on Connected apps, stated in every quote as
spend_left_today, enforced at quote and at placing; beyond it 403 spend_limit_exceeded naming the
allowance and the page. The settings' per-credential cap stays the most any app may spend."""

import pytest

from apps.audit.models import AuditEvent, EventType
from apps.safeguards.models import ConnectionRules
from tests.calls.callbacks import Placer
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory
from tests.support.oauth import decide, make_client, pkce, signed_in, start
from tests.support.safeguards import PLACE_SCOPES, connect

pytestmark = pytest.mark.django_db

PAGE = "/settings/connected-apps"


def app_placer(owner, **rules):
    app, token = connect(owner, ask_first=False, **rules)
    return app, Placer(owner, secret=token)


def test_a_quote_states_what_the_apps_allowance_leaves_today(owner, clock):
    _app, placer = app_placer(owner, daily_allowance=100)
    quote = placer.quote()
    assert quote.status_code == 201, quote.content
    body = quote.json()
    assert body["spend_left_today"] == 100
    assert body["max_amount"] <= 100  # six cents a minute: sixteen minutes fit in a dollar
    assert body["max_duration"] == 16 * 60


def test_an_api_key_quote_states_the_least_of_the_account_and_key_caps(owner, clock):
    body = Placer(owner).quote().json()
    assert body["spend_left_today"] == 2000  # the key's $20 below the account's $50


def test_the_default_allowance_is_five_dollars(owner, clock):
    _app, placer = app_placer(owner)
    assert placer.quote().json()["spend_left_today"] == 500


def test_beyond_the_allowance_quote_and_placement_are_403_naming_it_and_the_page(owner, clock):
    _app, placer = app_placer(owner, daily_allowance=100)
    placed = placer.quote_and_place()  # its hold takes what the dollar buys
    assert placed["status"] == "ringing_you"
    refused = placer.quote("+12025550101")
    error = assert_error(refused, 403, "spend_limit_exceeded")
    assert "daily allowance" in error["message"] and "$1.00" in error["message"]
    assert "http://testserver/settings/connected-apps" in error["message"]


def test_placing_checks_the_allowance_again(owner, clock):
    app, placer = app_placer(owner, daily_allowance=500)
    first = placer.quote().json()
    second = placer.quote("+12025550101").json()
    placer.place(first["id"])
    placer.end(first_call_id(owner))
    ConnectionRules.objects.filter(client_id=app.client_id).update(daily_allowance=100)
    # The first call's hold is released at its end, but what it was charged still counts: with a
    # dollar now, what is left buys less than the quote promised, and the placement holds no more.
    placed = placer.place(second["id"])
    assert placed.status_code == 201, placed.content
    assert placed.json()["max_duration"] <= 16 * 60


def first_call_id(owner):
    from apps.calls.models import Call

    return Call.objects.filter(user=owner).order_by("created").values_list("id", flat=True).first()


def test_the_settings_cap_stays_the_most(owner, clock, settings):
    settings.CALL_SPEND_LIMIT_CREDENTIAL_DAILY = "3.00"
    _app, placer = app_placer(owner, daily_allowance=2000)
    assert placer.quote().json()["spend_left_today"] == 300


def test_connected_apps_shows_and_changes_the_allowance(owner, clock):
    app, placer = app_placer(owner, daily_allowance=100)
    browser = signed_in(owner)
    html = browser.get(PAGE).content.decode()
    entry = html[html.index(f'data-client-id="{app.client_id}"') :]
    assert '<option value="100" selected>$1.00</option>' in entry
    clock.tick(1)
    saved = browser.post(f"{PAGE}/rules", {"client_id": app.client_id, "daily_allowance": "2000"})
    assert saved.status_code == 302
    assert placer.quote().json()["spend_left_today"] == 2000
    event = AuditEvent.objects.filter(event_type=EventType.CONNECTION_ALLOWANCE_CHANGED).order_by("-created").first()
    assert event.client_id == app.client_id and event.actor_id == owner.pk
    assert event.data["summary"] == "set the daily allowance to $20.00 (was $1.00)"
    html = browser.get(PAGE).content.decode()
    assert "Set the daily allowance to $20.00 (was $1.00)" in html  # on the app's own entry
    assert "Set the daily allowance to $20.00" in browser.get("/settings/activity").content.decode()


def test_an_allowance_not_offered_is_refused_and_changes_nothing(owner):
    app, _placer = app_placer(owner, daily_allowance=100)
    browser = signed_in(owner)
    browser.post(f"{PAGE}/rules", {"client_id": app.client_id, "daily_allowance": "300"})
    assert ConnectionRules.objects.get(client_id=app.client_id).daily_allowance == 100


class TestConsent:
    def transaction(self, owner, app, scope=PLACE_SCOPES):
        _verifier, challenge = pkce()
        browser = signed_in(owner)
        return browser, start(browser, app, challenge, scope=scope)

    def test_the_page_offers_the_allowances_when_calls_place_is_asked(self, owner):
        app = make_client(registration_source="dcr")
        browser, txn = self.transaction(owner, app)
        page = browser.get(f"/oauth/consent?transaction={txn}").content.decode()
        assert 'name="daily_allowance" value="500" checked' in page
        assert 'value="100"' in page and 'value="2000"' in page
        assert 'id="ask-first" checked' in page  # self-registered: asks first by default
        details = browser.get(f"/api/oauth/transactions/{txn}").json()
        assert [c["amount"] for c in details["rules"]["choices"]] == [100, 500, 2000]
        assert details["rules"]["ask_first"] is True
        assert "allowance you choose" in page and "Ask me first" in page and "reads your messages" in page

    def test_no_allowance_is_asked_without_calls_place(self, owner):
        app = make_client()
        browser, txn = self.transaction(owner, app, scope="calls:read")
        assert 'id="app-rules"' not in browser.get(f"/oauth/consent?transaction={txn}").content.decode()
        assert browser.get(f"/api/oauth/transactions/{txn}").json()["rules"] is None

    def test_the_chosen_allowance_and_switch_are_kept_and_audited(self, owner):
        app = make_client(registration_source="dcr")
        browser, txn = self.transaction(owner, app)
        decided = decide(browser, txn, confirm_sensitive=True, daily_allowance=2000, ask_first=False)
        assert decided.status_code == 200, decided.content
        rules = ConnectionRules.objects.get(user=owner, client_id=app.client_id)
        assert (rules.daily_allowance, rules.ask_first) == (2000, False)
        # Part of connecting the app (its own event); a later change is an event of its own.
        types = set(AuditEvent.objects.filter(client_id=app.client_id).values_list("event_type", flat=True))
        assert types == {EventType.OAUTH_CONNECTION_CREATED}

    @pytest.mark.parametrize("value", [300, "500", 0, -100, None, 5.0])
    def test_an_allowance_not_offered_is_400_and_decides_nothing(self, owner, value):
        app = make_client(registration_source="dcr")
        browser, txn = self.transaction(owner, app)
        refused = decide(browser, txn, confirm_sensitive=True, daily_allowance=value)
        assert_error(refused, 400, "invalid_request", param="daily_allowance")
        assert not ConnectionRules.objects.filter(client_id=app.client_id).exists()
        assert browser.get(f"/api/oauth/transactions/{txn}").status_code == 200  # still undecided

    def test_defaults_when_the_page_sends_no_choice(self, owner):
        for source, asks in (("dcr", True), ("manual", False)):
            app = make_client(registration_source=source)
            browser, txn = self.transaction(owner, app)
            assert decide(browser, txn, confirm_sensitive=True).status_code == 200
            rules = ConnectionRules.objects.get(user=owner, client_id=app.client_id)
            assert (rules.daily_allowance, rules.ask_first) == (500, asks)


def test_the_form_changes_only_an_app_connected_to_this_account(owner):
    app, _placer = app_placer(owner, daily_allowance=100)
    stranger = UserFactory(email="stranger@example.com")
    signed_in(stranger).post(f"{PAGE}/rules", {"client_id": app.client_id, "daily_allowance": "2000"})
    signed_in(owner).post(f"{PAGE}/rules", {"client_id": "dcr_nobody", "daily_allowance": "2000"})
    assert list(ConnectionRules.objects.values_list("user_id", "client_id", "daily_allowance")) == [
        (owner.pk, app.client_id, 100)
    ]
