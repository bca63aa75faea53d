"""Writes demo_deck.csv: a rate deck with INVENTED prices for every region phonenumbers knows.

The prices are made up (drawn from a seeded random generator) so that the
quick start can answer rate questions for any country; they are nobody's
tariff. A CSV with our exact header cannot carry a comment, so this module,
the file's name and the README say so. Regenerate with
``python -m apps.rates.demo_deck`` (deterministic: the same phonenumbers
release gives the same file).

How the prefixes are found: for each country calling code, the digits after it
are explored as a trie. A node is sampled with random completions (plus the
example numbers phonenumbers ships, so that small enclaves such as the Vatican
inside +39 0 are found); the numbers phonenumbers calls valid there are
classified by region and by "mobile or not". A node whose numbers all agree is
a leaf; a mixed node is split into its ten children. The calling code itself
is the main region's fixed-line rate; leaves that differ from that (another
region sharing the code, such as +1 876 Jamaica, or a mobile range) become
longer prefixes.
"""

import csv
import random
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path

import phonenumbers
from babel import Locale
from phonenumbers import PhoneMetadata, PhoneNumberType

HEADER = ("prefix", "country", "label", "currency", "per_minute", "first_seconds", "next_seconds")
PATH = Path(__file__).with_name("demo_deck.csv")
CURRENCY = "usd"
SEED = 20261001
SAMPLES = 60
# National digits explored below the calling code: regions are told apart down to five
# digits (+39 06698 is the Vatican), mobile ranges down to two (+49 15, +44 74).
MAX_DEPTH = 5
MAX_KIND_DEPTH = 2
# A region phonenumbers never names for a number of its own (EH shares +212 with MA):
# its fixed-line example's first digits.
FALLBACK_DIGITS = 4
# The North American plan (+1): each region owns whole area codes (three digits), and a
# number does not tell a mobile from a landline (phonenumbers says FIXED_LINE_OR_MOBILE
# for US and CA), so +1 is split by area code only and never by kind.
NANP = 1
NANP_DEPTH = 3
MOBILE = "mobile"
OTHER = "other"
# Whole-minute billing is the common case; some carriers bill per second or 30/6.
INCREMENTS = ((60, 60),) * 6 + ((1, 1),) * 3 + ((30, 6),)

NAMES = Locale.parse("en").territories


def _possible_lengths(cc: int, regions) -> list[int]:
    if cc == NANP:
        return [10]  # the 7-digit lengths are local dialling, never valid with +1
    lengths = set()
    for region in regions:
        desc = PhoneMetadata.metadata_for_region(region).general_desc
        lengths.update(n for n in desc.possible_length if n > 0)
    return sorted(lengths)


def _examples(regions) -> list[str]:
    """National significant numbers of every example number phonenumbers ships for these regions."""
    found = []
    for region in regions:
        for kind in (PhoneNumberType.FIXED_LINE, PhoneNumberType.MOBILE, PhoneNumberType.FIXED_LINE_OR_MOBILE):
            number = phonenumbers.example_number_for_type(region, kind)
            if number is not None:
                found.append(phonenumbers.national_significant_number(number))
    return found


def _classify(cc: int, national: str):
    number = phonenumbers.parse(f"+{cc}{national}", None)
    if not phonenumbers.is_valid_number(number):
        return None
    region = phonenumbers.region_code_for_number(number)
    if cc == NANP:
        return region, OTHER
    return region, MOBILE if phonenumbers.number_type(number) == PhoneNumberType.MOBILE else OTHER


def _digit(cc: int, position: int, rng) -> str:
    # NANP numbers are NXX-NXX-XXXX: area and exchange codes never start with 0 or 1. Drawing
    # those anyway finds the odd special range (CA's 310-xxxx) instead of the area's owner.
    if cc == NANP and position in (0, 3):
        return rng.choice("23456789")
    return rng.choice("0123456789")


def _sample(cc: int, head: str, lengths, examples, rng) -> Counter:
    seen = Counter()
    for _ in range(SAMPLES):
        length = rng.choice(lengths)
        if length <= len(head):
            continue
        national = head + "".join(_digit(cc, position, rng) for position in range(len(head), length))
        found = _classify(cc, national)
        if found:
            seen[found] += 1
    for example in examples:
        if example.startswith(head):
            found = _classify(cc, example)
            if found:
                seen[found] += 1
    return seen


def _leaves(cc: int, head: str, lengths, examples, rng):
    """(national head, (region, kind)) for every agreeing node under ``head``."""
    seen = _sample(cc, head, lengths, examples, rng)
    if not seen:
        return
    regions = {region for region, _kind in seen}
    deepest = NANP_DEPTH if cc == NANP else MAX_DEPTH
    if len(seen) == 1 or len(head) >= deepest or (len(regions) == 1 and len(head) >= MAX_KIND_DEPTH):
        yield head, seen.most_common(1)[0][0]
        return
    for digit in "0123456789":
        yield from _leaves(cc, head + digit, lengths, examples, rng)


def _price(rng, low: float, high: float) -> Decimal:
    return Decimal(str(round(rng.uniform(low, high), 3))).normalize()


# Carriers price the United States and Canada as one destination.
SAME_TARIFF = {"CA": "US"}


def _tariff(region: str):
    """Invented prices for a region: (fixed, mobile, (first_seconds, next_seconds))."""
    rng = random.Random(f"{SEED}-{SAME_TARIFF.get(region, region)}")  # noqa: S311 (invented prices)
    fixed = _price(rng, 0.004, 0.12)
    mobile = (fixed * Decimal(str(round(rng.uniform(1.2, 3.0), 2)))).quantize(Decimal("0.001")).normalize()
    return fixed, mobile, rng.choice(INCREMENTS)


def deck_rows() -> list[tuple]:
    rng = random.Random(SEED)  # noqa: S311 (sampling, not secrets)
    rows = {}
    for cc, regions in sorted(phonenumbers.COUNTRY_CODE_TO_REGION_CODE.items()):
        regions = [r for r in regions if r in phonenumbers.SUPPORTED_REGIONS]
        if not regions:
            continue  # non-geographic codes (+800, +882 ...): no country to price
        main = regions[0]
        lengths = _possible_lengths(cc, regions)
        examples = _examples(regions)
        rows[str(cc)] = (main, OTHER)
        for head, (region, kind) in _leaves(cc, "", lengths, examples, rng):
            if (region, kind) != (main, OTHER) and head:
                rows[f"{cc}{head}"] = (region, kind)
        for region in set(regions) - {region for region, _kind in rows.values()}:
            example = phonenumbers.example_number_for_type(region, PhoneNumberType.FIXED_LINE)
            national = phonenumbers.national_significant_number(example)
            rows.setdefault(f"{cc}{national[:FALLBACK_DIGITS]}", (region, OTHER))
    out = []
    for prefix, (region, kind) in sorted(rows.items()):
        fixed, mobile, (first, step) = _tariff(region)
        name = NAMES.get(region, region)
        label = f"{name} - Mobile" if kind == MOBILE else name
        price = mobile if kind == MOBILE else fixed
        out.append((prefix, region, label, CURRENCY, format(price, "f"), first, step))
    return out


def main() -> int:
    rows = deck_rows()
    missing = set(phonenumbers.SUPPORTED_REGIONS) - {row[1] for row in rows}
    if missing:
        print(f"regions without a prefix: {sorted(missing)}", file=sys.stderr)
        return 1
    with PATH.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(HEADER)
        writer.writerows(rows)
    print(f"{PATH.name}: {len(rows)} prefixes for {len({row[1] for row in rows})} regions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
