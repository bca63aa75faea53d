"""Every /v1 read answers alike on the fast path and through DRF's request cycle (apps/api_v1/fastpath.py).

Each request below is asked both ways, the fast path turned off for the second,
and the answers compared: status, body and every header but the per-request ones
(tests/support/fast_path.py). The table covers every resource route, found from
the URL list, so a new resource app is held to it too.
"""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from apps.accounts.models import SharingSettings
from apps.api_v1.bases import ResourceApi
from apps.apikeys.services import apikey_revoke
from apps.credentials.session import SessionOnlyMixin
from tests.billing.factories import ledger
from tests.calls.factories import CallFactory, TranscriptFactory
from tests.contacts.factories import make_contact
from tests.messages.factories import make_message, make_sms_number
from tests.numbers.factories import make_caller_id, make_number
from tests.rates.factories import make_deck
from tests.support.factories import UserFactory, make_api_key
from tests.support.fast_path import alike, answer

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_budgets(settings):
    # Each table asks its forty requests twice, past one key's reads a minute; that both paths
    # spend and refuse alike is tests/accounts/test_me_fast_path.py's test_a_spent_budget.
    settings.RATELIMIT = {**settings.RATELIMIT, "ENABLED": False}


EVERY_READ = [
    "rates:read",
    "credits:read",
    "calls:read",
    "transcripts:read",
    "contacts:read",
    "numbers:read",
    "messages:read",
]


@pytest.fixture
def account():
    user = UserFactory()
    make_deck()
    rows = ledger(user, ["top_up", "call", "refund", "call", "adjustment"])
    contact = make_contact(user, "Ana López", (("+34612345678", "mobile"), ("+14155550100", "work")))
    calls = [CallFactory(user=user, contact_id=contact.id) for _ in range(4)]
    TranscriptFactory(call=calls[0])
    number, caller_id = make_number(user), make_caller_id(user, default=True)
    sms_number = make_sms_number(user, "+442071838799")
    message = make_message(sms_number, "Your code is 1234")
    off = make_sms_number(user, "+442071838798", shared=False)
    ids = {
        "sms_number": sms_number.id,
        "message": message.id,
        "off_message": make_message(off).id,
        "old_message": make_message(sms_number, ago=7200).id,
        "txn": rows[2].id,
        "call": calls[1].id,
        "contact": contact.id,
        "number": number.id,
        "caller_id": caller_id.id,
    }
    return user, ids


def requests(ids: dict) -> list[str]:
    return [
        "/v1/me?unknown=1",
        "/v1/me?format=json",
        "/v1/me?format=xml",
        "/v1/calls?format=api",
        "/v1/balance?access_token=sk_live_in_the_url",
        "/v1/rates?to=%2B4915112345678",
        "/v1/rates?to=Germany",
        "/v1/rates?to=Korea",
        "/v1/rates?to=",
        "/v1/rates",
        "/v1/rates?to=%2B8613812345678",
        "/v1/balance",
        "/v1/balance_transactions",
        "/v1/balance_transactions?limit=2",
        "/v1/balance_transactions?type=call",
        "/v1/balance_transactions?type=nope",
        "/v1/balance_transactions?limit=0",
        f"/v1/balance_transactions?starting_after={ids['txn']}",
        f"/v1/balance_transactions?ending_before={ids['txn']}&type=call",
        "/v1/balance_transactions?starting_after=txn_nope",
        f"/v1/balance_transactions?starting_after={ids['txn']}&ending_before={ids['txn']}",
        f"/v1/balance_transactions/{ids['txn']}",
        "/v1/balance_transactions/txn_nope",
        "/v1/calls",
        "/v1/calls?limit=1&direction=outbound",
        "/v1/calls?direction=sideways",
        "/v1/calls?expand[]=contact",
        "/v1/calls?expand[]=transcript",
        "/v1/calls?expand[]=everything",
        f"/v1/calls?starting_after={ids['call']}",
        f"/v1/calls/{ids['call']}",
        f"/v1/calls/{ids['call']}?expand[]=transcript&expand[]=contact",
        "/v1/calls/call_nope",
        "/v1/contacts",
        "/v1/contacts?query=ana",
        "/v1/contacts?query=%2B34 612",
        "/v1/contacts?query=",
        f"/v1/contacts?starting_after={ids['contact']}",
        f"/v1/contacts/{ids['contact']}",
        "/v1/contacts/ct_nope",
        "/v1/numbers",
        f"/v1/numbers/{ids['number']}",
        "/v1/numbers/num_nope",
        "/v1/caller_ids",
        "/v1/messages",
        f"/v1/messages?number={ids['sms_number']}&limit=1",
        "/v1/messages?number=%2B442071838798",
        "/v1/messages?number=num_nope",
        "/v1/messages?created[gte]=1",
        "/v1/messages?from=%3Cx%3E",
        f"/v1/messages?starting_after={ids['old_message']}",
        f"/v1/messages/{ids['message']}",
        f"/v1/messages/{ids['off_message']}",
        f"/v1/messages/{ids['old_message']}",
        "/v1/messages/msg_nope",
    ]


def _resource_patterns() -> list[URLPattern]:
    """Every ResourceApi's URL pattern, with the route as written in the URL list."""
    found = []

    def walk(patterns, prefix):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                view_class = getattr(entry.callback, "view_class", None)
                if view_class is not None and issubclass(view_class, ResourceApi):
                    entry.route = prefix + str(entry.pattern)
                    found.append(entry)

    walk(get_resolver().url_patterns, "/")
    return found


def resource_routes() -> set[str]:
    return {entry.route for entry in _resource_patterns()}


def test_the_table_asks_every_resource_route(account):
    _user, ids = account
    asked = {path.split("?")[0] for path in requests(ids)}
    for route in resource_routes():
        head = route.split("<")[0]
        assert any(path == route or (head != route and path.startswith(head)) for path in asked), route


@pytest.mark.parametrize("summaries", [True, False])
def test_every_read_with_every_scope(account, summaries):
    user, ids = account
    SharingSettings.objects.update_or_create(user=user, defaults={"call_summaries": summaries})
    _key, secret = make_api_key(user, scopes=EVERY_READ)
    statuses = {path: alike(path, secret)[0] for path in requests(ids)}
    assert {200, 400, 404} <= set(statuses.values())
    # The transcript expansion is refused while the account's call summaries switch is off.
    assert (statuses["/v1/calls?expand[]=transcript"] == 403) is not summaries


@pytest.mark.parametrize("scope", ["rates:read", "calls:read", "contacts:read"])
def test_every_read_with_one_scope(account, scope):
    user, ids = account
    _key, secret = make_api_key(user, scopes=[scope])
    statuses = {path: alike(path, secret)[0] for path in requests(ids)}
    assert 403 in statuses.values() and 200 in statuses.values()


def test_every_read_in_test_mode_and_with_a_pinned_version(account):
    user, ids = account
    _key, secret = make_api_key(user, scopes=EVERY_READ, livemode=False)
    for path in requests(ids)[:12]:
        alike(path, secret)
        alike(path, secret, HTTP_SERVICE_VERSION="1999-01-01")


@pytest.mark.parametrize(
    "secret", ["sk_live_" + "A" * 43, "sat_" + "B" * 43, "nothing-we-issue", "revoked", "wrong-address"]
)
def test_credentials_that_do_not_serve(account, secret):
    user, ids = account
    if secret == "revoked":
        key, secret = make_api_key(user, scopes=EVERY_READ)
        apikey_revoke(key=key)
    elif secret == "wrong-address":
        _key, secret = make_api_key(user, scopes=EVERY_READ, ip_allowlist=["203.0.113.0/24"])
    for path in ("/v1/balance", "/v1/calls?limit=1", f"/v1/contacts/{ids['contact']}"):
        status, body, _headers = alike(path, secret)
        assert status in (401, 403) and "error" in body


def test_requests_the_fast_path_leaves_to_drf(account):
    user, _ids = account
    _key, secret = make_api_key(user, scopes=EVERY_READ)
    assert answer("/v1/balance?format=json", secret, via_drf=False) == answer(
        "/v1/balance?format=json", secret, via_drf=True
    )
    assert answer("/v1/balance", secret, via_drf=False, HTTP_ACCEPT="text/html")[0] == 406


def test_every_resource_route_has_the_fast_path_in_front():
    for entry in _resource_patterns():
        assert getattr(entry.callback, "fast_path", False), entry.route


def test_a_view_that_authenticates_otherwise_keeps_drfs_cycle():
    class SessionOnly(SessionOnlyMixin, ResourceApi):
        required_scope = None

        def get(self, request):
            raise AssertionError("not reached in this test")

    class OwnPermissions(ResourceApi):
        required_scope = None

        def check_permissions(self, request):
            raise AssertionError("not reached in this test")

        def get(self, request):
            raise AssertionError("not reached in this test")

    assert not getattr(SessionOnly.as_view(), "fast_path", False)
    assert not getattr(OwnPermissions.as_view(), "fast_path", False)
    assert getattr(
        ResourceApi.as_view.__func__(
            type("Plain", (ResourceApi,), {"required_scope": None, "get": lambda self, request: None})
        ),
        "fast_path",
        False,
    )
