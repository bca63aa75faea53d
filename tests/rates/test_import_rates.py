"""manage.py import_rates (docs/design.md, Phase 2): the whole deck replaced in one transaction; a file with
any bad row refused, naming its line, and the old deck left in place; 60,000 rows; the demo deck."""

from decimal import Decimal
from io import StringIO

import phonenumbers
import pytest
from django.core.management import CommandError, call_command

from apps.rates import services
from apps.rates.models import Rate
from apps.rates.selectors import rate_for_number
from tests.rates.factories import make_deck

pytestmark = pytest.mark.django_db

HEADER = "prefix,country,label,currency,per_minute,first_seconds,next_seconds"
GOOD = [
    "49,DE,Germany,usd,0.012,60,60",
    "4915,DE,Germany - Mobile,usd,0.045,60,60",
    '44,GB,"United Kingdom, all numbers",usd,0.01,1,1',
]


@pytest.fixture
def old_deck():
    return make_deck()


def deck_now() -> list[tuple]:
    return list(Rate.objects.order_by("prefix").values_list("prefix", "country", "label", "per_minute"))


def write(tmp_path, lines, *, encoding="utf-8", name="deck.csv"):
    path = tmp_path / name
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    return path


def run(*args) -> str:
    out = StringIO()
    call_command("import_rates", *args, stdout=out)
    return out.getvalue()


def refused(path) -> str:
    with pytest.raises(CommandError) as raised:
        run(str(path))
    message = str(raised.value)
    assert "refused, the current deck is unchanged" in message
    return message


def test_a_good_file_replaces_the_whole_deck(tmp_path, old_deck):
    output = run(str(write(tmp_path, [HEADER, *GOOD])))
    assert output.strip() == "Imported 3 rates for 2 countries."
    assert deck_now() == [
        ("44", "GB", "United Kingdom, all numbers", Decimal("0.01")),
        ("49", "DE", "Germany", Decimal("0.012")),
        ("4915", "DE", "Germany - Mobile", Decimal("0.045")),
    ]
    rate = rate_for_number("+4915112345678")
    assert (rate.prefix, rate.currency, rate.first_seconds, rate.next_seconds) == ("4915", "usd", 60, 60)


def test_forgiving_where_nothing_is_lost(tmp_path, db):
    # A byte-order mark (spreadsheet exports), lowercase country, uppercase currency, spaces, blank lines.
    path = tmp_path / "deck.csv"
    path.write_bytes(f"\ufeff{HEADER}\r\n 49 , de ,Germany, USD ,0.0120,60,60\r\n\r\n".encode())
    run(str(path))
    assert deck_now() == [("49", "DE", "Germany", Decimal("0.012"))]
    assert Rate.objects.get().currency == "usd"


def assert_the_row_is_refused_and_the_deck_stays(tmp_path, row, says):
    """A file of the good rows and then ``row`` is refused, naming line 5 and why; the deck stays."""
    before = deck_now()
    message = refused(write(tmp_path, [HEADER, *GOOD, row]))
    assert f"line 5: {says}" in message
    assert deck_now() == before


@pytest.mark.parametrize(
    ("row", "says"),
    [
        ("+49,DE,Germany,usd,0.012,60,60", "prefix must be 1 to 15 digits"),
        ("49 151,DE,Germany,usd,0.012,60,60", "prefix must be 1 to 15 digits"),
        ("049,DE,Germany,usd,0.012,60,60", "prefix must be 1 to 15 digits"),
        ("1234567890123456,DE,Germany,usd,0.012,60,60", "prefix must be 1 to 15 digits"),
        (",DE,Germany,usd,0.012,60,60", "prefix must be 1 to 15 digits"),
        ("2,DE,Germany,usd,0.012,60,60", "prefix 2 does not start with a country calling code"),
        ("49,XX,Germany,usd,0.012,60,60", "country must be an ISO 3166-1 alpha-2 code"),
        ("49,DEU,Germany,usd,0.012,60,60", "country must be an ISO 3166-1 alpha-2 code"),
        ("49,DE,,usd,0.012,60,60", "label must be 1 to 100 characters"),
        ("49,DE," + "x" * 101 + ",usd,0.012,60,60", "label must be 1 to 100 characters"),
        ("49,DE,Germany,eur,0.012,60,60", "currency must be usd"),
        ("49,DE,Germany,usd,-0.012,60,60", "per_minute must be a decimal"),
        ("49,DE,Germany,usd,1e-3,60,60", "per_minute must be a decimal"),
        ("49,DE,Germany,usd,NaN,60,60", "per_minute must be a decimal"),
        ('49,DE,Germany,usd,"0,012",60,60', "per_minute must be a decimal"),
        ("49,DE,Germany,usd,,60,60", "per_minute must be a decimal"),
        ("49,DE,Germany,usd,0.0000001,60,60", "per_minute has more than 6 decimal places"),
        ("49,DE,Germany,usd,1000000,60,60", "per_minute must be below"),
        ("49,DE,Germany,usd,0.012,0,60", "first_seconds must be a whole number of seconds"),
        ("49,DE,Germany,usd,0.012,60,3601", "next_seconds must be a whole number of seconds"),
        ("49,DE,Germany,usd,0.012,1.5,60", "first_seconds must be a whole number of seconds"),
        ("49,DE,Germany,usd,0.012,60", "expected 7 fields"),
        ("49,DE,Germany,usd,0.012,60,60,extra", "expected 7 fields"),
    ],
)
def test_a_bad_row_refuses_the_file_naming_its_line_and_the_old_deck_stays(tmp_path, old_deck, row, says):
    assert_the_row_is_refused_and_the_deck_stays(tmp_path, row, says)


def test_every_bad_line_is_named(tmp_path, old_deck):
    before = deck_now()
    message = refused(write(tmp_path, [HEADER, "49,DE,Germany,usd,x,60,60", *GOOD, "44,GB,UK,usd,0.01,60,0"]))
    assert "line 2: per_minute" in message
    assert "line 6: next_seconds" in message
    assert deck_now() == before


def test_a_duplicate_prefix_names_both_lines(tmp_path, old_deck):
    before = deck_now()
    message = refused(write(tmp_path, [HEADER, *GOOD, "4915,DE,Again,usd,0.05,60,60"]))
    assert "line 5: prefix 4915 is already on line 3" in message
    assert deck_now() == before


@pytest.mark.parametrize(
    "header",
    [
        "prefix,country,label,currency,per_minute,first_seconds",
        "prefix,country,label,currency,rate,first_seconds,next_seconds",
        "country,prefix,label,currency,per_minute,first_seconds,next_seconds",
        "49,DE,Germany,usd,0.012,60,60",
    ],
)
def test_the_header_must_be_exact(tmp_path, old_deck, header):
    before = deck_now()
    message = refused(write(tmp_path, [header, *GOOD]))
    assert f"line 1: the header must be exactly {HEADER}" in message
    assert deck_now() == before


def test_a_header_without_rates_is_refused(tmp_path, old_deck):
    before = deck_now()
    assert "no rates" in refused(write(tmp_path, [HEADER]))
    assert "line 1" in refused(write(tmp_path, [""], name="empty.csv"))
    assert deck_now() == before


def test_a_file_that_is_not_utf8_is_refused(tmp_path, old_deck):
    before = deck_now()
    message = refused(write(tmp_path, [HEADER, "262,RE,Réunion,usd,0.1,60,60"], encoding="latin-1"))
    assert "not UTF-8" in message
    assert deck_now() == before


def test_broken_csv_quoting_is_refused(tmp_path, old_deck):
    before = deck_now()
    assert "line 2: not valid CSV" in refused(write(tmp_path, [HEADER, '49,DE,"Germ"any,usd,0.012,60,60']))
    assert deck_now() == before


def test_a_missing_file_is_an_error(tmp_path, old_deck):
    with pytest.raises(CommandError, match="No such file"):
        run(str(tmp_path / "nowhere.csv"))
    assert len(deck_now()) == len(old_deck)


def test_a_failed_write_leaves_the_old_deck(tmp_path, old_deck, monkeypatch):
    before = deck_now()

    def broken(*args, **kwargs):
        raise RuntimeError("the database went away mid-import")

    monkeypatch.setattr(Rate.objects, "bulk_create", broken)
    with pytest.raises(RuntimeError):
        run(str(write(tmp_path, [HEADER, *GOOD])))
    assert deck_now() == before


def test_sixty_thousand_rows_import(tmp_path, old_deck):
    # 1000000 ... 1059999: distinct prefixes under +1, a deck the size of a carrier's.
    rows = [f"1{n:06d},US,Block {n},usd,0.{n % 1000:03d}5,60,60" for n in range(60_000)]
    output = run(str(write(tmp_path, [HEADER, *rows])))
    assert output.strip() == "Imported 60000 rates for 1 countries."
    assert Rate.objects.count() == 60_000
    assert not Rate.objects.filter(prefix="49").exists()
    rate = rate_for_number("+10012345678")  # digits 1001234...: prefix 1001234
    assert (rate.prefix, rate.per_minute) == ("1001234", Decimal("0.2345"))


def test_the_import_is_batched(tmp_path, db, monkeypatch):
    batches = []
    real = Rate.objects.bulk_create

    def spy(rates, batch_size=None, **kwargs):
        batches.append(batch_size)
        return real(rates, batch_size=batch_size, **kwargs)

    monkeypatch.setattr(Rate.objects, "bulk_create", spy)
    run(str(write(tmp_path, [HEADER, *GOOD])))
    assert batches == [services.BATCH_SIZE]


# --- The demo deck -----------------------------------------------------------------------


@pytest.fixture
def demo(db):
    output = run("--demo")
    assert "the prices are invented" in output
    return output


def test_the_demo_deck_prices_every_region_phonenumbers_knows(demo):
    assert set(Rate.objects.values_list("country", flat=True)) >= set(phonenumbers.SUPPORTED_REGIONS)
    for region in phonenumbers.SUPPORTED_REGIONS:
        example = phonenumbers.example_number(region)
        if example is None:
            continue
        e164 = phonenumbers.format_number(example, phonenumbers.PhoneNumberFormat.E164)
        assert rate_for_number(e164) is not None, region


@pytest.mark.parametrize(
    ("number", "country", "prefix"),
    [
        ("+18765551234", "JM", "1876"),
        ("+12423571234", "BS", "1242"),
        ("+17875551234", "PR", "1787"),
        ("+12125551234", "US", "1"),
        ("+13105551234", "US", "1"),
        ("+14165551234", "CA", "1416"),
        ("+447700900123", "GB", None),
        ("+441534123456", "JE", "441534"),
        ("+79123456789", "RU", None),
        ("+77012345678", "KZ", None),
        ("+390669812345", "VA", "3906698"),
        ("+4915112345678", "DE", None),
    ],
)
def test_the_demo_deck_tells_apart_regions_that_share_a_calling_code(demo, number, country, prefix):
    rate = rate_for_number(number)
    assert rate.country == country
    if prefix:
        assert rate.prefix == prefix


def test_canada_and_the_united_states_cost_the_same_in_the_demo_deck(demo):
    assert rate_for_number("+14165551234").per_minute == rate_for_number("+12125551234").per_minute


def test_the_demo_deck_is_in_the_service_currency(db, settings):
    settings.SERVICE_CURRENCY = "eur"
    run("--demo")
    assert set(Rate.objects.values_list("currency", flat=True)) == {"eur"}


def test_if_empty_keeps_a_loaded_deck(old_deck):
    before = deck_now()
    assert "already loaded" in run("--demo", "--if-empty")
    assert deck_now() == before


def test_if_empty_loads_into_an_empty_deck(db):
    run("--demo", "--if-empty")
    assert Rate.objects.count() > 1000


def test_a_file_or_demo_is_required(db):
    with pytest.raises(CommandError):
        run()


# --- Hardened: ASCII countries, labels safe to export and to speak, files read as a stream ------


@pytest.mark.parametrize(
    ("row", "says"),
    [
        ("211,\u00df,South Sudan,usd,0.012,60,60", "country must be an ISO 3166-1 alpha-2 code"),  # ß -> SS
        ("358,\ufb01,Finland,usd,0.012,60,60", "country must be an ISO 3166-1 alpha-2 code"),  # ﬁ -> FI
        ("358,F\u0130,Finland,usd,0.012,60,60", "country must be an ISO 3166-1 alpha-2 code"),
        ('49,DE,=HYPERLINK("http://x"),usd,0.012,60,60', "label must not start with"),
        ("49,DE,+49 mobile,usd,0.012,60,60", "label must not start with"),
        ("49,DE,-Germany,usd,0.012,60,60", "label must not start with"),
        ("49,DE,@SUM(A1),usd,0.012,60,60", "label must not start with"),
        ("49,DE,Germany\u202e elibom,usd,0.012,60,60", "label must not hold bidirectional"),
        ("49,DE,Ger\u200bmany,usd,0.012,60,60", "label must not hold bidirectional"),
        ("49,DE,\u2066Germany\u2069,usd,0.012,60,60", "label must not hold bidirectional"),
    ],
)
def test_countries_are_ascii_and_labels_neither_formulas_nor_reordered(tmp_path, old_deck, row, says):
    assert_the_row_is_refused_and_the_deck_stays(tmp_path, row, says)


def test_a_lower_case_ascii_country_is_still_read(tmp_path, db):
    run(str(write(tmp_path, [HEADER, "49,de,Germany,usd,0.012,60,60"])))
    assert deck_now() == [("49", "DE", "Germany", Decimal("0.012"))]


def big_deck(tmp_path, rows: int, last: str):
    path = tmp_path / "big.csv"
    with path.open("w", encoding="utf-8") as out:
        out.write(HEADER + "\n")
        for n in range(rows - 1):
            out.write(f"1{n:09d},US,United States,usd,0.01,60,60\n")
        out.write(last + "\n")
    return path


def refusal_peak(path) -> tuple[str, int, list]:
    """The refusal's message, the Python memory it peaked at, and the statements it ran."""
    import tracemalloc

    from django.db import connection

    statements = []

    def record(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    tracemalloc.start()
    try:
        with connection.execute_wrapper(record):
            message = refused(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return message, peak, statements


def test_a_long_file_refused_at_its_last_line_is_read_as_a_stream_without_a_statement(tmp_path, old_deck):
    from apps.rates.countries import country_codes

    country_codes()  # loaded once per process (CLDR's names), not per file
    short, long = 6_000, 60_000
    _, short_peak, _ = refusal_peak(big_deck(tmp_path, short, "44,GB,=cmd,usd,0.01,60,60"))
    message, long_peak, statements = refusal_peak(big_deck(tmp_path, long, "44,GB,=cmd,usd,0.01,60,60"))
    assert f"line {long + 1}: label must not start with" in message
    assert statements == []  # refused before any database work
    # Flat: ten times the rows, the same memory. The prefixes seen are indexed on disk (a
    # private SQLite file with a capped page cache); held as model instances, 200,000 rows took
    # 310 MB, and as a dict of ints about 100 bytes a row.
    assert long_peak < short_peak + 256 * 1024, (short_peak, long_peak)
