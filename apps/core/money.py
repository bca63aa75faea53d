"""Money as the API states it (docs/design.md, Phase 2): integer minor units with a lowercase ISO 4217
currency, rates below one minor unit as decimal strings in minor units, and display strings.

The number of minor-unit digits is the currency's own (babel's CLDR data: 2 for
usd, 0 for jpy, 3 for kwd), never assumed to be 2.
"""

from decimal import ROUND_CEILING, Decimal

from babel.core import Locale
from babel.numbers import format_currency, get_currency_name, get_currency_precision

DISPLAY_LOCALE = Locale.parse("en_US")


def minor_digits(currency: str) -> int:
    return get_currency_precision(currency.upper())


def to_minor(major: Decimal, currency: str) -> Decimal:
    """An amount in major units (0.045 usd) as minor units (4.5), exactly."""
    return Decimal(major).scaleb(minor_digits(currency))


def to_major(minor: Decimal | int, currency: str) -> Decimal:
    return Decimal(minor).scaleb(-minor_digits(currency))


def ceil_minor(minor: Decimal) -> int:
    """Rounded up to a whole minor unit (a charge never rounds in the service's favour by less)."""
    return int(Decimal(minor).to_integral_value(rounding=ROUND_CEILING))


def decimal_string(value: Decimal) -> str:
    """A decimal as a plain string without exponent or trailing zeros: "4.5", "12", "0.35"."""
    text = format(Decimal(value).normalize(), "f")
    return text


def display(minor: Decimal | int, currency: str) -> str:
    """ "$12.34" for 1234 usd; a sub-unit rate keeps its digits: "$0.045" for 4.5 usd minor units."""
    major = to_major(minor, currency)
    digits = max(minor_digits(currency), -major.normalize().as_tuple().exponent)
    pattern = "¤#,##0." + "0" * digits if digits else "¤#,##0"
    return format_currency(major, currency.upper(), format=pattern, locale=DISPLAY_LOCALE, currency_digits=False)


def spoken(minor: Decimal | int, currency: str) -> str:
    """For reading aloud: "12.34 US dollars"."""
    major = to_major(minor, currency)
    digits = max(minor_digits(currency), -major.normalize().as_tuple().exponent)
    name = get_currency_name(currency.upper(), count=2 if abs(major) != 1 else 1, locale=DISPLAY_LOCALE)
    return f"{major:.{digits}f} {name}"
