"""Home shows what apps can see: the balance, the numbers and which share their messages,
the call-summaries switch and the connected apps, each linking to the page that changes it."""

import re

import pytest

from apps.accounts.security import sharing_update
from apps.numbers.services import number_set_messages_opt_in
from tests.billing.factories import append
from tests.numbers.factories import make_number
from tests.support.oauth import issue, make_client, signed_in

pytestmark = pytest.mark.django_db


def section(html: str) -> str:
    start = html.index('id="visible"')
    return html[start : html.index("</section>", start)]


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_a_new_account_sees_nothing_shared(user):
    html = section(signed_in(user).get("/").content.decode())
    words = text(html)
    assert "$0.00" in words
    assert "No active number." in words
    assert "Off : no app can read your call summaries" in words
    assert "None yet." in words
    for link in ("/billing", "/settings/sharing", "/settings/connected-apps"):
        assert f'href="{link}"' in html


def test_balance_numbers_switch_and_apps(user):
    append(user, type="top_up", amount=2363)
    append(user, type="top_up", amount=500, livemode=False)  # test mode: no app sees it
    shared = make_number(user, "+442071838750", sms=True)
    make_number(user, "+442079460011", label="Office")
    make_number(user, "+442079460099", livemode=False)
    number_set_messages_opt_in(user=user, number_id=shared.pk, value=True)
    sharing_update(user=user, call_summaries=True, message_reading=True)
    app = make_client(name="Pocket Assistant")
    issue(user, app, scope="rates:read calls:read calls:place")

    html = section(signed_in(user).get("/").content.decode())
    words = text(html)

    assert "$23.63" in words
    # Numbers as people read them; E.164, for copying, in the title and a data attribute.
    assert "+44 20 7183 8750 : shares its messages" in words
    assert 'data-e164="+442071838750" title="+442071838750 (at home: 020 7183 8750)"' in html
    # A number without SMS has no messages to share, and says so rather than "not shared".
    assert "+44 20 7946 0011 (Office): cannot receive SMS" in words
    assert "+442079460099" not in html and "+44 20 7946 0099" not in words
    assert "On : apps allowed to read transcripts can read your call summaries" in words
    assert "Pocket Assistant : 3 permissions, 1 sensitive" in words
    assert f'data-client-id="{app.client_id}"' in html


def test_home_costs_a_bounded_number_of_queries(user, django_assert_max_num_queries):
    for n in range(5):
        issue(user, make_client(name=f"App {n}"))
        make_number(user, f"+4420794600{n:02d}")
    browser = signed_in(user)
    browser.get("/")
    # session, user, balance, numbers, sharing, connections (3)
    with django_assert_max_num_queries(8):
        browser.get("/")


def test_two_apps_of_one_name_are_told_apart_by_host_and_date(user):
    from django.utils import timezone

    first = make_client(name="Assistant", redirect_uris="https://one.example.com/cb")
    second = make_client(name="Assistant", redirect_uris="https://two.example.org/cb")
    issue(user, first, scope="rates:read")
    issue(user, second, scope="rates:read")
    html = section(signed_in(user).get("/").content.decode())
    entries = re.findall(r'<li data-client-id="[^"]+">.*?</li>', html, re.S)
    assert len(entries) == 2
    assert "one.example.com" in entries[0] + entries[1] and "two.example.org" in entries[0] + entries[1]
    today = timezone.now()
    assert all(f"connected {today.day} {today:%b %Y}" in text(entry) for entry in entries), entries


def test_another_accounts_numbers_and_apps_are_never_shown(user):
    from tests.support.factories import UserFactory

    eve = UserFactory(email="eve@example.com")
    make_number(eve, "+442079460055", sms=True)
    issue(eve, make_client(name="Eve's Assistant"), scope="rates:read")
    append(eve, type="top_up", amount=4242)
    html = section(signed_in(user).get("/").content.decode())
    assert "+442079460055" not in html and "Eve's Assistant" not in html and "$42.42" not in html
