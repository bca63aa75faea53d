"""GET /v1/rates?to= (docs/design.md, Phase 2): a number's rate by its longest prefix, a country's estimate,
every error with its param, and the scope and mode rules."""

from decimal import Decimal

import pytest

from apps.credentials.scopes import ALL_SCOPES
from tests.rates.factories import RateFactory, germany_on_the_deck
from tests.rates.shapes import RATE_FIELDS
from tests.support.envelope import assert_error
from tests.support.factories import make_api_key
from tests.support.mcp import install_fake_tokens

pytestmark = pytest.mark.django_db


def ok(response) -> dict:
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == RATE_FIELDS
    return body


# --- A number ------------------------------------------------------------------------------


def test_a_number_gets_the_rate_of_its_longest_prefix(deck, rates):
    assert ok(rates("+4915112345678")) == {
        "object": "rate",
        "query": "+4915112345678",
        "to": "+4915112345678",
        "estimate": False,
        "country": "DE",
        "country_name": "Germany",
        "label": "Germany - Mobile (Telekom)",
        "prefix": "49151",
        "currency": "usd",
        "per_minute_amount_decimal": "9",
        "per_minute_min_amount_decimal": "9",
        "per_minute_max_amount_decimal": "9",
        "billing_increment": {"first_seconds": 60, "next_seconds": 60},
        "next_step": None,
        "livemode": True,
    }


@pytest.mark.parametrize(
    ("number", "prefix", "amount"),
    [
        ("+4915112345678", "49151", "9"),  # the longest of 49, 4915, 49151
        ("+4915212345678", "4915", "4.5"),  # 49152 is not in the deck: 4915 is the longest
        ("+493012345678", "49", "1.2"),  # only the country code matches
    ],
)
def test_a_longer_prefix_wins(deck, rates, number, prefix, amount):
    body = ok(rates(number))
    assert (body["prefix"], body["per_minute_amount_decimal"]) == (prefix, amount)


def test_the_number_may_be_written_with_spaces_and_is_answered_in_e164(deck, rates):
    body = ok(rates(" +49 (151) 1234-5678 "))
    assert body["query"] == " +49 (151) 1234-5678 "
    assert body["to"] == "+4915112345678"
    assert body["prefix"] == "49151"


def test_a_fictional_number_still_gets_a_rate_by_its_prefix(deck, rates):
    # +44 7700 900xxx is Ofcom's range for drama: possible, never valid, never assigned.
    body = ok(rates("+44 7700 900123"))
    assert (body["to"], body["prefix"], body["country"]) == ("+447700900123", "447", "GB")


def test_a_number_in_an_unassigned_range_of_a_priced_code_gets_that_codes_rate(deck, rates):
    # Area code 999 is not assigned in the North American plan; +1 still prices it.
    body = ok(rates("+19995551234"))
    assert (body["prefix"], body["country"]) == ("1", "US")


@pytest.mark.parametrize(
    ("number", "country", "prefix"),
    [
        ("+18765551234", "JM", "1876"),  # Jamaica
        ("+12423571234", "BS", "1242"),  # Bahamas
        ("+12125551234", "US", "1"),  # New York
        ("+14165551234", "US", "1"),  # Toronto: this deck has no Canadian prefix, +1 prices it
    ],
)
def test_plus_one_numbers_of_other_nanp_countries_get_their_own_rate(deck, rates, number, country, prefix):
    body = ok(rates(number))
    assert (body["country"], body["prefix"]) == (country, prefix)


def test_money_is_in_minor_units_of_the_currencys_own_digits(rates):
    RateFactory(prefix="49", per_minute=Decimal("0.045"), currency="usd")  # 2 digits: 4.5 cents
    RateFactory(prefix="81", country="JP", label="Japan", per_minute=Decimal("1.5"), currency="jpy")  # 0 digits
    RateFactory(prefix="973", country="BH", label="Bahrain", per_minute=Decimal("0.0125"), currency="bhd")  # 3
    assert ok(rates("+4915112345678"))["per_minute_amount_decimal"] == "4.5"
    assert ok(rates("+81312345678"))["per_minute_amount_decimal"] == "1.5"
    bahrain = ok(rates("+97317123456"))
    assert (bahrain["per_minute_amount_decimal"], bahrain["currency"]) == ("12.5", "bhd")


def test_a_sub_minor_rate_stays_exact(rates):
    RateFactory(prefix="49", per_minute=Decimal("0.000123"))
    assert ok(rates("+4915112345678"))["per_minute_amount_decimal"] == "0.0123"


# --- A country --------------------------------------------------------------------------------


def test_a_country_gets_an_estimate(deck, rates):
    assert ok(rates("Germany")) == germany_on_the_deck("Germany")


@pytest.mark.parametrize(
    "query", ["DE", "de", "Germany", "germany", "GERMANY", "  Germany  ", "Allemagne", "Deutschland", "Alemania"]
)
def test_a_country_by_code_or_by_name_in_several_languages(deck, rates, query):
    body = ok(rates(query))
    assert (body["country"], body["estimate"], body["query"]) == ("DE", True, query)


@pytest.mark.parametrize("query", ["Perú", "peru", "PERÚ", "Pérou", "Peru"])
def test_accents_do_not_matter(deck, rates, query):
    assert ok(rates(query))["country"] == "PE"


@pytest.mark.parametrize(("query", "country"), [("South Kor", "KR"), ("Deutsch", "DE"), ("united king", "GB")])
def test_a_name_is_matched_by_word_starts(rates, query, country):
    RateFactory(prefix="82", country="KR", label="South Korea")
    RateFactory(prefix="49", country="DE")
    RateFactory(prefix="44", country="GB", label="United Kingdom")
    assert ok(rates(query))["country"] == country


def test_an_estimate_over_prefixes_billed_differently_has_no_billing_increment(deck, rates):
    body = ok(rates("France"))
    assert body["billing_increment"] is None
    assert (body["per_minute_min_amount_decimal"], body["per_minute_max_amount_decimal"]) == ("1.1", "4")


def test_an_estimate_of_one_prefix_has_min_equal_to_max(deck, rates):
    body = ok(rates("Jamaica"))
    assert body["per_minute_min_amount_decimal"] == body["per_minute_max_amount_decimal"] == "15"
    assert body["per_minute_amount_decimal"] is None
    assert body["next_step"] == "Give the full number in E.164 format, starting with +1, for the exact rate."


@pytest.mark.parametrize(
    ("query", "candidates"),
    [
        ("Korea", ["North Korea (KP)", "South Korea (KR)"]),
        ("Congo", ["Congo - Brazzaville (CG)", "Congo - Kinshasa (CD)"]),
        ("Virgin Islands", ["British Virgin Islands (VG)", "U.S. Virgin Islands (VI)"]),
    ],
)
def test_an_ambiguous_name_is_400_naming_the_candidates(deck, rates, query, candidates):
    error = assert_error(rates(query), 400, "invalid_request", param="to")
    for candidate in candidates:
        assert candidate in error["message"]


def test_a_long_list_of_candidates_is_cut_short(deck, rates):
    error = assert_error(rates("isl"), 400, "invalid_request", param="to")  # "Islands" of a dozen names
    assert " more." in error["message"]
    assert len(error["message"]) < 400


# --- Errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("to", "says"),
    [
        (None, "A destination is required"),
        ("", "A destination is required"),
        ("   ", "A destination is required"),
        ("Narnia", "neither a phone number"),
        ("4915112345678", "with + and the country code"),
        ("0049 151 12345678", "with + and the country code"),
        ("+49 1", "not a possible phone number"),
        ("+999 1234 5678", "not a possible phone number"),  # no such country code
        ("+", "not a possible phone number"),
        ("+4915112345678" + "1" * 90, "at most 100 characters"),
    ],
)
def test_neither_a_number_nor_a_country_is_400_with_param_to(deck, rates, to, says):
    error = assert_error(rates(to), 400, "invalid_request", param="to")
    assert says in error["message"]


def test_a_number_no_prefix_covers_is_404(deck, rates):
    error = assert_error(rates("+8613812345678"), 404, "not_found", param="to")
    assert "+8613812345678" in error["message"]


def test_a_country_with_no_rate_is_404(deck, rates):
    error = assert_error(rates("Japan"), 404, "not_found", param="to")
    assert "Japan" in error["message"]


def test_an_empty_deck_is_404_not_500(rates):
    assert_error(rates("+4915112345678"), 404, "not_found", param="to")
    assert_error(rates("DE"), 404, "not_found", param="to")


def test_no_credential_is_401(deck, client):
    assert_error(client.get("/v1/rates", {"to": "DE"}), 401, "invalid_token")


def test_only_reads_are_allowed(deck, client, live_secret):
    response = client.post("/v1/rates?to=DE", HTTP_AUTHORIZATION=f"Bearer {live_secret}")
    assert_error(response, 405, "method_not_allowed")


# --- Scopes and modes -----------------------------------------------------------------------


def test_every_scope_but_rates_read_is_403_with_the_challenge(deck, user, rates):
    others = [s for s in ALL_SCOPES if s != "rates:read"]
    _key, secret = make_api_key(user, scopes=others)
    response = rates("DE", secret=secret)
    assert_error(response, 403, "insufficient_scope", type_="permission_error")
    assert response["WWW-Authenticate"].startswith('Bearer error="insufficient_scope", scope="rates:read"')


def test_rates_read_alone_is_enough(deck, user, rates):
    _key, secret = make_api_key(user, scopes=["rates:read"])
    assert ok(rates("+4915112345678", secret=secret))["prefix"] == "49151"


def test_an_oauth_token_needs_rates_read_too(deck, user, rates, settings):
    tokens = install_fake_tokens(settings)
    v1 = f"{settings.BASE_URL}/v1"
    without = tokens.issue(user, scopes=frozenset({"credits:read"}), resource=v1)
    response = rates("DE", secret=without)
    assert_error(response, 403, "insufficient_scope")
    assert 'scope="rates:read"' in response["WWW-Authenticate"]
    with_scope = tokens.issue(user, scopes=frozenset({"rates:read"}), resource=v1)
    assert ok(rates("DE", secret=with_scope))["country"] == "DE"


def test_a_test_key_reads_the_same_deck_with_livemode_false(deck, rates, test_secret):
    live = ok(rates("+4915112345678"))
    test = ok(rates("+4915112345678", secret=test_secret))
    assert (live["livemode"], test["livemode"]) == (True, False)
    assert {**test, "livemode": True} == live
    assert ok(rates("Germany", secret=test_secret))["livemode"] is False


def test_every_answer_has_request_id_and_no_store(deck, rates):
    for response in (rates("DE"), rates("Narnia")):
        assert response["Request-Id"].startswith("req_")
        assert response["Cache-Control"] == "no-store"


# --- A + sent unencoded in the URL -------------------------------------------------------------


def test_an_unencoded_plus_arrives_as_a_space_and_is_read_as_plus(deck, client, live_secret):
    # curl '/v1/rates?to=+4915112345678': the query string decodes the + as a space.
    response = client.get("/v1/rates?to=+4915112345678", HTTP_AUTHORIZATION=f"Bearer {live_secret}")
    body = ok(response)
    assert (body["to"], body["prefix"]) == ("+4915112345678", "49151")


def test_an_unencoded_plus_with_spaces_in_the_number_is_read_alike(deck, client, live_secret):
    response = client.get("/v1/rates?to=+49+151+1234+5678", HTTP_AUTHORIZATION=f"Bearer {live_secret}")
    assert ok(response)["to"] == "+4915112345678"


def test_a_leading_space_before_a_word_is_not_a_plus(deck, rates):
    assert ok(rates(" Germany"))["country"] == "DE"


def test_digits_without_plus_are_refused_with_how_to_write_plus_in_a_url(deck, rates):
    error = assert_error(rates("4915112345678"), 400, "invalid_request", param="to")
    assert "%2B" in error["message"]
    assert "--data-urlencode" in error["message"]
