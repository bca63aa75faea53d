"""Numbers typed as people type them are priced, limited and blocked as the number they dial
(docs/design.md "Numbers are canonical"): the rates read, the quote, the blocked, premium and
simulator checks, and the velocity counts, for each form a number arrives in."""

from decimal import Decimal

import pytest

from apps.calls.models import Call, Quote
from apps.ratelimit.testing import clear_budgets
from apps.rates.models import Rate
from tests.calls.callbacks import Placer, ready
from tests.support.envelope import assert_error

pytestmark = pytest.mark.django_db

# Two rows of each country, the longer prefix dearer: priced by the raw string, +44 07... matched
# the 44 row (5.2 a minute) instead of the 447 one (14.8).
DECK = [
    ("1", "US", "United States", "0.010"),
    ("44", "GB", "United Kingdom", "0.052"),
    ("447", "GB", "United Kingdom mobile", "0.148"),
    ("49", "DE", "Germany", "0.030"),
    ("4915", "DE", "Germany mobile", "0.120"),
    ("33", "FR", "France", "0.020"),
    ("336", "FR", "France mobile", "0.090"),
]
# (as typed, as dialled, the prefix that prices it)
PRICED = [
    ("+4407700900123", "+447700900123", "447"),
    ("+44 (0)7700 900123", "+447700900123", "447"),
    ("+49015112345678", "+4915112345678", "4915"),
    ("+49 0151 1234 5678", "+4915112345678", "4915"),
    ("+330612345678", "+33612345678", "336"),
    ("+33 6.12.34.56.78", "+33612345678", "336"),
    ("+1 (202) 555-0177", "+12025550177", "1"),
]


@pytest.fixture
def placer(owner, clock):
    ready(owner, credit=100_000, rates_too=False)
    for prefix, country, label, per_minute in DECK:
        Rate.objects.create(
            prefix=prefix,
            country=country,
            label=label,
            currency="usd",
            per_minute=Decimal(per_minute),
            first_seconds=60,
            next_seconds=60,
        )
    return Placer(owner, scopes=("calls:place", "calls:read", "credits:read", "rates:read"))


@pytest.mark.parametrize(("typed", "dialled", "prefix"), PRICED)
def test_the_rates_read_prices_the_number_dialled(placer, typed, dialled, prefix):
    response = placer.get("/v1/rates", {"to": typed})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["to"] == dialled and body["prefix"] == prefix


@pytest.mark.parametrize(("typed", "dialled", "prefix"), PRICED)
def test_the_quote_prices_stores_and_echoes_the_number_dialled(placer, typed, dialled, prefix):
    response = placer.quote(typed)
    assert response.status_code == 201, response.content
    quote = response.json()
    rate = Rate.objects.get(prefix=prefix)
    assert quote["to"] == dialled and quote["label"] == rate.label
    assert Decimal(quote["per_minute_amount_decimal"]) == rate.per_minute * 100
    assert Quote.objects.get(pk=quote["id"]).to_number == dialled


@pytest.mark.parametrize("typed", ["+4407700900123", "+44 7700 900123", "+44 (0) 7700-900.123"])
def test_blocked_prefixes_hold_for_every_form(placer, settings, typed):
    settings.BLOCKED_PREFIXES = ["+44 7700"]  # an operator may write the prefix with + and spaces
    assert_error(placer.quote(typed), 422, "destination_not_allowed", param="to")
    assert placer.get("/v1/rates", {"to": typed}).status_code == 200  # a rate is not a call


@pytest.mark.parametrize("typed", ["+12025550105", "+112025550105", "+1 1 202 555 0105", "+1 (202) 555-0105"])
def test_the_simulators_blocked_number_is_blocked_in_every_form(placer, typed):
    assert_error(placer.quote(typed), 422, "destination_not_allowed", param="to")


@pytest.mark.parametrize("typed", ["+499001234567", "+4909001234567", "+49009001234567", "+49 0 900 1234567"])
def test_a_premium_number_is_refused_in_its_trunk_forms(placer, typed):
    refused = placer.quote(typed)
    assert_error(refused, 422, "destination_not_allowed", param="to")
    assert "+49 900 1 234567 is a premium-rate number" in refused.json()["error"]["message"]


def test_the_velocity_count_is_one_count_whatever_the_form(placer, clock):
    forms = ["+12025550177", "+1 202-555-0177", "+112025550177", "+1 (202) 555 0177", "+1.202.555.0177"]
    for typed in forms:
        clear_budgets()
        call = placer.quote_and_place(typed)
        assert call["to"] == "+12025550177"
        clock.tick(1)
        placer.end(call["id"])
    assert set(Call.objects.values_list("to_number", flat=True)) == {"+12025550177"}
    refused = placer.quote("+1 1 202 555 0177")
    assert_error(refused, 403, "spend_limit_exceeded")
    assert "+1 202-555-0177" in refused.json()["error"]["message"]


@pytest.mark.parametrize("bad", ["+1 800 FLOWERS", "1 202 555 0177", "+1 202 555 0177 ext 4", "+12 34"])
def test_what_is_not_a_number_is_400_and_writes_nothing(placer, bad):
    assert_error(placer.quote(bad), 400, "invalid_request", param="to")
    assert not Quote.objects.exists()


def test_a_caller_id_and_a_contact_number_are_stored_canonical(owner):
    from apps.contacts.services import phone_number_build
    from apps.numbers.services import caller_id_create

    caller_id = caller_id_create(user=owner, livemode=False, number="+4407700900123")
    assert caller_id.number == "+447700900123"
    phone = phone_number_build(number="+330612345678", label="mobile", position=0)
    assert phone.number == "+33612345678" and phone.country == "FR"
