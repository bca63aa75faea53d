"""Reading a rate deck file: every row checked before anything is written.

The format (docs/decisions/rates.md): UTF-8 CSV, header exactly ``HEADER``,
one row per prefix. A file with any bad row is refused whole, each error
naming its line, so that an operator never ends up with half a price list.

The file is read twice, row by row, never held whole: ``rate_deck_check`` reads
every row and refuses the file (no database work at all), then ``rate_deck_rates``
yields the rows again for ``rate_deck_replace`` to write in batches. Memory is that of
a batch, whatever the file's length: the prefixes seen (duplicates are refused with both
lines) are indexed in a private temporary SQLite file, never in the process.
"""

import csv
import re
import sqlite3
from decimal import Decimal

import phonenumbers

from apps.core.echo import has_formatting

from .countries import country_codes
from .models import PER_MINUTE_DECIMALS, PER_MINUTE_DIGITS, PREFIX_MAX_DIGITS, Rate

HEADER = ("prefix", "country", "label", "currency", "per_minute", "first_seconds", "next_seconds")
PREFIX = re.compile(rf"[1-9][0-9]{{0,{PREFIX_MAX_DIGITS - 1}}}")
SECONDS = re.compile(r"[0-9]{1,4}")
DECIMAL = re.compile(r"[0-9]{1,12}(\.[0-9]{1,12})?")
MAX_SECONDS = 3600
MAX_LABEL = 100
MAX_PER_MINUTE = Decimal(10) ** (PER_MINUTE_DIGITS - PER_MINUTE_DECIMALS)
FORMULA_STARTS = ("=", "+", "-", "@")
# Enough to fix a file in one go without flooding the terminal.
MAX_ERRORS = 20
CALLING_CODES = frozenset(str(code) for code in phonenumbers.COUNTRY_CODE_TO_REGION_CODE)


class DeckError(Exception):
    """The file is refused; ``errors`` are sentences starting with their line number."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("\n".join(errors))


def _prefix(value: str) -> str:
    if not PREFIX.fullmatch(value):
        raise ValueError(f"prefix must be 1 to {PREFIX_MAX_DIGITS} digits without + or spaces, not {value!r}")
    if not any(value[:n] in CALLING_CODES for n in (1, 2, 3)):
        raise ValueError(f"prefix {value} does not start with a country calling code")
    return value


def _country(value: str) -> str:
    # ASCII letters only, checked before upper(): "ß".upper() is "SS" (South Sudan), "ﬁ" is "FI".
    code = value.upper() if value.isascii() else ""
    if code not in country_codes():
        raise ValueError(f"country must be an ISO 3166-1 alpha-2 code such as DE, not {value!r}")
    return code


def _label(value: str) -> str:
    label = value.strip()
    if not label or len(label) > MAX_LABEL or any(ord(c) < 32 or 127 <= ord(c) < 160 for c in label):
        raise ValueError(f"label must be 1 to {MAX_LABEL} characters without control characters")
    if label.startswith(FORMULA_STARTS):
        # A spreadsheet opening an export of the deck would run it as a formula.
        raise ValueError(f"label must not start with {', '.join(FORMULA_STARTS)} (a spreadsheet formula)")
    if has_formatting(label):
        # Labels are spoken to users (svc_get_rate): nothing may reorder or hide their text.
        raise ValueError(
            "label must not hold bidirectional or zero-width formatting characters (U+200B-200F, "
            "U+202A-202E, U+2066-2069)"
        )
    return label


def _currency(value: str, expected: str) -> str:
    if value.lower() != expected.lower():
        raise ValueError(f"currency must be {expected.lower()}, the currency accounts are billed in, not {value!r}")
    return expected.lower()


def _per_minute(value: str) -> Decimal:
    # Plain decimals only: no sign, exponent, NaN or thousands separator can slip through.
    if not DECIMAL.fullmatch(value):
        raise ValueError(f"per_minute must be a decimal in major units such as 0.045, not {value!r}")
    amount = Decimal(value)
    if amount.normalize().as_tuple().exponent < -PER_MINUTE_DECIMALS:
        raise ValueError(f"per_minute has more than {PER_MINUTE_DECIMALS} decimal places: {value}")
    if amount >= MAX_PER_MINUTE:
        raise ValueError(f"per_minute must be below {MAX_PER_MINUTE}: {value}")
    return amount


def _seconds(name: str, value: str) -> int:
    if not SECONDS.fullmatch(value) or not 1 <= int(value) <= MAX_SECONDS:
        raise ValueError(f"{name} must be a whole number of seconds from 1 to {MAX_SECONDS}, not {value!r}")
    return int(value)


def _row(fields: list[str], currency: str) -> dict:
    if len(fields) != len(HEADER):
        raise ValueError(f"expected {len(HEADER)} fields ({','.join(HEADER)}), found {len(fields)}")
    prefix, country, label, row_currency, per_minute, first, step = (f.strip() for f in fields)
    # Plain values: checking a row builds no model instance (the check reads every row first).
    return {
        "prefix": _prefix(prefix),
        "country": _country(country),
        "label": _label(label),
        "currency": _currency(row_currency, currency),
        "per_minute": _per_minute(per_minute),
        "first_seconds": _seconds("first_seconds", first),
        "next_seconds": _seconds("next_seconds", step),
    }


class _SeenPrefixes:
    """The line of each prefix read so far, on disk: SQLite's "" database is a private temporary
    file, deleted on close, its page cache capped, so a file of any length costs the same memory."""

    CACHE_KIB = 1024

    def __init__(self):
        self._db = sqlite3.connect("")
        self._db.execute(f"PRAGMA cache_size = -{self.CACHE_KIB}")
        self._db.execute("CREATE TABLE seen (prefix INTEGER PRIMARY KEY, line INTEGER NOT NULL)")

    def first_line(self, prefix: int, line: int) -> int | None:
        """None the first time ``prefix`` is seen (recorded on ``line``), else the line it was first on."""
        if self._db.execute("INSERT OR IGNORE INTO seen VALUES (?, ?)", (prefix, line)).rowcount:
            return None
        return self._db.execute("SELECT line FROM seen WHERE prefix = ?", (prefix,)).fetchone()[0]

    def close(self) -> None:
        self._db.close()


def _rows(lines, currency: str, errors: list[str]):
    """The fields of each good row, in order; each bad row's sentence is appended to ``errors``."""
    reader = csv.reader(lines, strict=True)
    seen = _SeenPrefixes()
    try:
        header = next(reader, None)
        if header is None or tuple(h.strip() for h in header) != HEADER:
            errors.append(f"line 1: the header must be exactly {','.join(HEADER)}")
            return
        for fields in reader:
            line = reader.line_num
            if not fields or fields == [""]:
                continue  # blank lines, such as a trailing one
            try:
                rate = _row(fields, currency)
            except ValueError as error:
                errors.append(f"line {line}: {error}")
            else:
                # A prefix has no leading zero, so its int names it.
                first = seen.first_line(int(rate["prefix"]), line)
                if first is not None:
                    errors.append(f"line {line}: prefix {rate['prefix']} is already on line {first}")
                else:
                    yield rate
            if len(errors) >= MAX_ERRORS:
                errors.append("(stopped after the first errors)")
                return
    except csv.Error as error:
        errors.append(f"line {reader.line_num}: not valid CSV ({error})")
    except UnicodeDecodeError:
        errors.append(f"line {reader.line_num + 1}: the file is not UTF-8 text")
    finally:
        seen.close()


def rate_deck_check(*, lines, currency: str) -> int:
    """The number of rates in a deck file (``lines`` as ``open(path, newline="")`` gives them), every
    row read and none kept; raises ``DeckError``."""
    errors: list[str] = []
    count = sum(1 for _ in _rows(lines, currency, errors))
    if errors:
        raise DeckError(errors)
    if not count:
        raise DeckError(["the file has a header but no rates; an empty deck would price every call as unknown"])
    return count


def rate_deck_rates(*, lines, currency: str):
    """The rates of a deck file ``rate_deck_check`` passed, one at a time; raises ``DeckError`` if
    the file no longer passes (changed between the two readings)."""
    errors: list[str] = []
    for fields in _rows(lines, currency, errors):
        yield Rate(**fields)
    if errors:
        raise DeckError(errors)


def rate_deck_read(*, lines, currency: str) -> list[Rate]:
    """The rates of a small deck held in memory (tests, the demo deck's writer); raises ``DeckError``."""
    rows = list(lines)
    rate_deck_check(lines=rows, currency=currency)
    return list(rate_deck_rates(lines=rows, currency=currency))
