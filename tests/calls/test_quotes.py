"""POST /v1/quotes: the quote object, and each refusal in docs/design.md's order with its code and param."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.billing.services import ledger_append
from apps.calls.models import Call
from tests.calls.callbacks import CALLEE, YOUR_PHONE, Placer, ready
from tests.calls.factories import make_contact
from tests.support.envelope import assert_error

pytestmark = pytest.mark.django_db


@pytest.fixture
def placer(owner):
    ready(owner)
    return Placer(owner)


def test_a_quote_states_price_numbers_and_limits(placer):
    response = placer.quote(CALLEE)
    assert response.status_code == 201, response.content
    quote = response.json()
    assert quote["object"] == "quote" and quote["id"].startswith("quo_")
    assert quote["status"] == "open"
    assert quote["to"] == CALLEE and quote["to_country"] == "US"
    assert quote["your_number"] == YOUR_PHONE and quote["caller_id"] == YOUR_PHONE
    assert quote["label"] == "United States"
    assert quote["per_minute_amount_decimal"] == "6"
    assert quote["billing_increment"] == {"first_seconds": 60, "next_seconds": 60}
    # 1000 cents available at 6 a minute: 166 whole minutes, under 4 hours.
    assert quote["max_duration"] == 166 * 60 and quote["max_amount"] == 996
    assert quote["expires_at"] - quote["created"] == 600
    assert quote["call"] is None and quote["contact"] is None and quote["record"] is False
    assert quote["livemode"] is True and quote["currency"] == "usd"


def test_the_caps_bound_max_duration(placer, settings):
    settings.CALL_SPEND_LIMIT_CREDENTIAL_DAILY = "1.20"
    assert placer.quote().json()["max_duration"] == 20 * 60


def test_four_hours_at_most(placer, owner):
    ledger_append(user=owner, livemode=True, amount=100000, type="top_up", source=None, description="More")
    assert placer.quote().json()["max_duration"] == 4 * 3600


def test_a_contact_with_one_number(placer, owner):
    contact = make_contact(owner)
    contact.phone_numbers.all().delete()
    contact.phone_numbers.create(number="+4915112345678", label="mobile")
    quote = placer.quote(contact.id).json()
    assert quote["to"] == "+4915112345678" and quote["contact"] == contact.id


def test_a_contact_with_several_numbers_is_400_listing_labels(placer, owner):
    contact = make_contact(owner)
    contact.phone_numbers.all().delete()
    contact.phone_numbers.create(number="+4915112345678", label="mobile", position=0)
    contact.phone_numbers.create(number="+442071838750", label="work", position=1)
    error = assert_error(placer.quote(contact.id), 400, "invalid_request", param="to")
    assert "mobile" in error["message"] and "work" in error["message"]


@pytest.mark.parametrize("to", ["", "12025550100", "+1", "ct_nope!", None, 5])
def test_a_bad_to_is_400(placer, to):
    assert_error(
        placer.quote(to),
        400 if to != "ct_nope!" else 404,
        "invalid_request" if to != "ct_nope!" else "not_found",
        param="to",
    )


def test_no_rate_is_404(placer):
    assert_error(placer.quote("+33612345678"), 404, "not_found", param="to")


@pytest.mark.parametrize(
    "number",
    [
        "+12025550105",  # the simulator's blocked number
        "+881612345678",  # an international network
        "+449098790000",  # UK premium rate (09)
    ],
)
def test_a_blocked_destination_is_422(placer, number):
    from apps.rates.models import Rate

    Rate.objects.create(
        prefix="881", country="", label="Satellite", currency="usd", per_minute="1", first_seconds=60, next_seconds=60
    )
    assert_error(placer.quote(number), 422, "destination_not_allowed", param="to", type_="call_error")


def test_blocked_prefixes_are_422(placer, settings):
    settings.BLOCKED_PREFIXES = ["4930"]
    assert_error(placer.quote("+493012345678"), 422, "destination_not_allowed", param="to")


def test_balance_below_the_first_increment_is_402(owner):
    ready(owner, credit=5)
    error = assert_error(Placer(owner).quote(), 402, "insufficient_credits", type_="insufficient_credits_error")
    assert error["billing_url"].endswith("/billing")


def test_no_ledger_is_402(owner):
    ready(owner, credit=0)
    assert_error(Placer(owner).quote(), 402, "insufficient_credits")


def test_the_daily_cap_is_403(placer, settings):
    settings.CALL_SPEND_LIMIT_DAILY = "0.05"
    error = assert_error(placer.quote(), 403, "spend_limit_exceeded", type_="permission_error")
    assert "daily" in error["message"] and "00:00 UTC" in error["message"]


def test_order_rate_before_destination_before_balance_before_caps(owner, settings):
    ready(owner, credit=1)
    settings.CALL_SPEND_LIMIT_DAILY = "0.00"
    placer = Placer(owner)
    assert_error(placer.quote("+33612345678"), 404, "not_found", param="to")  # no rate
    assert_error(placer.quote("+12025550105"), 422, "destination_not_allowed", param="to")
    assert_error(placer.quote(CALLEE), 402, "insufficient_credits")  # before the cap


def test_five_calls_an_hour_to_one_number(placer, owner):
    for _ in range(5):
        _call(owner, CALLEE, created=timezone.now() - timedelta(minutes=10))
    error = assert_error(placer.quote(CALLEE), 403, "spend_limit_exceeded")
    assert "5 calls an hour" in error["message"]
    assert placer.quote("+12025550107").status_code == 201


def test_twenty_destinations_a_day(placer, owner):
    for n in range(20):
        _call(owner, f"+120255501{n + 10:02d}")
    assert_error(placer.quote(CALLEE), 403, "spend_limit_exceeded")
    assert placer.quote("+12025550110").status_code == 201  # one of the twenty


def test_a_caller_id_of_the_account(placer, owner):
    from apps.numbers.services import caller_id_create

    other = caller_id_create(user=owner, livemode=True, number="+442071838751")
    quote = placer.quote(CALLEE, caller_id=other.id).json()
    assert quote["caller_id"] == "+442071838751" and quote["your_number"] == YOUR_PHONE


def test_a_caller_id_of_another_account_is_404(placer, stranger):
    from apps.numbers.services import caller_id_create

    theirs = caller_id_create(user=stranger, livemode=True, number="+442071838752")
    assert_error(placer.quote(CALLEE, caller_id=theirs.id), 404, "not_found", param="caller_id")


def test_no_default_caller_id_is_400(owner):
    from tests.calls.callbacks import rates

    rates()
    ledger_append(user=owner, livemode=True, amount=1000, type="top_up", source=None, description="Top-up")
    assert_error(Placer(owner).quote(), 400, "invalid_request", param="caller_id")


def test_without_calls_place_is_403(owner):
    ready(owner)
    response = Placer(owner, scopes=["calls:read"]).quote()
    assert_error(response, 403, "insufficient_scope")
    assert 'scope="calls:place"' in response["WWW-Authenticate"]


def test_a_refused_quote_writes_nothing(placer):
    from apps.calls.models import Quote

    placer.quote("+12025550105")
    assert not Quote.objects.exists()


def _call(owner, to, created=None):
    from tests.calls.factories import CallFactory

    return CallFactory(
        user=owner, to_number=to, quote_id="quo_seeded", status="completed", created=created or timezone.now(), spend=0
    )


def test_calls_not_from_quotes_do_not_count(placer, owner):
    from tests.calls.factories import CallFactory

    for _ in range(6):
        CallFactory(user=owner, to_number=CALLEE, status="completed")
    assert Call.objects.count() == 6
    assert placer.quote(CALLEE).status_code == 201
