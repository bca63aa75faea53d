"""The history rows of the benchmark: a rate deck, ledgers, calls, address books and SMS inboxes, in bulk.

Run inside a Django process (bench/setup_data.py calls ``dataset_build``). Sizes follow
``scale``: at 1, a 60,000-prefix deck and ten heavy accounts with 100,000 ledger rows and
100,000 calls each (tables of 1,000,000), 10,000 contacts each and 10,000 messages each
(on two shared numbers, a month of them); at 0.1 a tenth of each.

Rows go in the way the services would leave them, only faster:

- the deck through ``manage.py import_rates`` itself (every row checked as an operator's is);
- contacts built with the contacts app's own derivations (``apps.contacts.search`` for the
  sort key and the terms, ``phone_number_build`` for each number's country), then COPY;
- each heavy account's two SMS numbers and its sharing switches through the numbers and
  accounts apps' services (both switches on, so its messages are readable), and the
  messages built by the messages app's own ``message_build`` (its code found as on arrival),
  then COPY;
- calls and ledger rows by ``INSERT ... SELECT`` over ``generate_series`` on PostgreSQL,
  obeying the models' check constraints; each account's ledger keeps the chain
  ``ending_balance = previous ending_balance + amount`` in (created, id) order (a window
  sum), its balance row holds the last ending balance, and ``dataset_check`` verifies both.
"""

import csv
import hashlib
import random
import tempfile
from datetime import timedelta
from pathlib import Path

import phonenumbers
from django.apps import apps as django_apps
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from apps.contacts import search
from apps.contacts.services import phone_number_build
from bench.dataset_sql import BALANCES_SQL, CALLS_SQL, CHECK_SQL, LEDGER_SQL, TRANSCRIPTS_SQL

HEAVY_ACCOUNTS = 10


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


FULL = {"deck": 60_000, "ledger": 100_000, "calls": 100_000, "contacts": 10_000, "messages": 10_000}
SEED = 20260601
FIRST_NAMES = _words(
    "Ana Ben Carla David Elena Fatima George Hannah Ivan Julia Kenji Laura Mateo Nadia Oliver Paula "
    "Quentin Rosa Samuel Tara Umar Valeria William Ximena Yusuf Zoe José Zoë Søren Łukasz Amelia "
    "Bruno Chloe Diego Emma Felix Grace Hugo Irene Jonas Karen Leo Maria Noah Olga Pedro Rita Sofia "
    "Tomas Vera"
)
LAST_NAMES = _words(
    "Smith Garcia Müller Rossi Dubois Silva Kowalski Nguyen Tanaka Johnson Brown Martin Jones Miller "
    "Davis Lopez Wilson Anderson Thomas Moore Taylor Jackson White Harris Clark Lewis Walker Young "
    "Allen King Wright Scott Green Baker Adams Nelson Hill Campbell Mitchell Roberts Carter Phillips "
    "Evans Turner Torres Parker Collins Edwards Stewart Flores Morris Murphy Rivera Cook Rogers "
    "Morgan Peterson Cooper Reed Bailey Bell Gomez Kelly Howard Ward Cox Diaz Richardson Wood Watson "
    "Brooks Bennett Gray James Reyes Cruz Hughes Price Myers Long Foster Sanders Ross Morales Powell "
    "Sullivan Russell Ortiz"
)
# What the contact-search case asks: whole first and last names and the starts of names.
QUERY_WORDS = _words(
    "ana maria jose lukasz soren emma noah garcia muller smith nguyen tanaka martin rivera cooper mar jo sa wil ro"
)
AREA_CODES = ("212", "415", "312", "617", "303", "206", "512", "646", "718", "202")
CALLER_ID = "+14155550123"
OWN_NUMBER = "+14155550199"
# Each heavy account's two SMS numbers (each account its own) and what they receive:
# one-time codes (some origin-bound), notices from alphanumeric senders, and texts from people.
SMS_NUMBER = "+1415555{:04d}"
SMS_NUMBER_STARTS = (100, 150)  # the first account's two; the next account's are one higher
MESSAGE_SENDERS = ("+14155550111", "+447700900123", "HSBC", "Uber", "+12125550188", "GOV.UK")
MESSAGE_BODIES = (
    "Your verification code is {code}. It expires in 10 minutes.",
    "{code} is your sign-in code. Don't share it with anyone.\n\n@accounts.example.com #{code}",
    "Your parcel is out for delivery today between 1 pm and 3 pm.",
    "Are we still on for lunch on Thursday? Let me know by tonight.",
    "Payment of $42.10 to ACME Store approved. Not you? Call the number on your card.",
)
# Messages are kept 30 days (apps/messages): a month of them, newest a minute before the build.
MESSAGE_SPAN_SECONDS = 30 * 24 * 3600


def sizes(scale: float) -> dict[str, int]:
    return {name: max(1, round(count * scale)) for name, count in FULL.items()}


def _model(label: str):
    return django_apps.get_model(label)


def _table(label: str) -> str:
    return _model(label)._meta.db_table


def _columns(label: str, names: list[str]) -> str:
    model = _model(label)
    return ", ".join(model._meta.get_field(name).column for name in names)


# --- The rate deck -----------------------------------------------------------------


def deck_rows(count: int, currency: str) -> list[list[str]]:
    """The demo deck's prefixes (every region phonenumbers knows, so every number has a price) and
    longer ones below them, breadth first, until ``count``: a carrier's deck splits each country
    into many ranges."""
    from apps.rates.management.commands.import_rates import DEMO_DECK

    with DEMO_DECK.open(encoding="utf-8", newline="") as lines:
        reader = csv.reader(lines)
        next(reader)
        base = [row for row in reader if row]
    rng = random.Random(SEED)
    rows, seen = [], set()
    for prefix, country, label, _, per_minute, first, step in base:
        rows.append([prefix, country, label, currency, per_minute, first, step])
        seen.add(prefix)
    frontier = [row for row in rows]
    while len(rows) < count and frontier:
        parents, frontier = frontier, []
        for prefix, country, label, _, per_minute, first, step in parents:
            for digit in "0123456789":
                child = prefix + digit
                if child in seen or len(child) > 15:
                    continue
                price = f"{float(per_minute) * rng.uniform(0.7, 1.6):.6f}"
                name = f"{label.split(' - ')[0]} - Range {child}"[:100]
                row = [child, country, name, currency, price, first, step]
                rows.append(row)
                frontier.append(row)
                seen.add(child)
                if len(rows) >= count:
                    break
            if len(rows) >= count:
                break
    return rows


def deck_import(count: int) -> None:
    """Through the operator's command, so the deck is checked and stored as a real import is."""
    currency = settings.SERVICE_CURRENCY.lower()
    header = ["prefix", "country", "label", "currency", "per_minute", "first_seconds", "next_seconds"]
    with tempfile.NamedTemporaryFile("w", suffix=".csv", newline="", encoding="utf-8", delete=False) as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(deck_rows(count, currency))
    try:
        call_command("import_rates", f.name, verbosity=0)
    finally:
        Path(f.name).unlink()


def lookup_numbers(count: int) -> list[str]:
    """Possible E.164 numbers of every region (example numbers with other last digits), for ``to=``."""
    rng = random.Random(SEED + 1)
    regions = sorted(phonenumbers.SUPPORTED_REGIONS)
    numbers = []
    for i in range(count):
        region = regions[i % len(regions)]
        kind = (phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE)[i % 2]
        example = phonenumbers.example_number_for_type(region, kind) or phonenumbers.example_number(region)
        if example is None:
            continue
        national = str(example.national_number)
        tail = min(4, len(national) - 1)
        national = national[:-tail] + f"{rng.randrange(10**tail):0{tail}d}" if tail > 0 else national
        number = phonenumbers.parse(f"+{example.country_code}{national}", None)
        if phonenumbers.is_possible_number(number):
            numbers.append(phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164))
    return numbers


# --- Contacts ------------------------------------------------------------------------


def _us_number(i: int) -> str:
    exchange = 200 + (i * 7) % 800
    return f"+1{AREA_CODES[i % len(AREA_CODES)]}{exchange}{(i * 7919) % 10000:04d}"


def contacts_copy(*, users: list[str], per_account: int, created) -> None:
    """Each account's address book; fills the temporary table ``bench_contact_map`` (account,
    index, id, first number) that the calls refer to."""
    rng = random.Random(SEED + 2)
    raw = connection.connection
    contact_cols = _columns("contacts.Contact", ["id", "user", "livemode", "created", "name", "sort_name"])
    phone_cols = _columns("contacts.ContactPhoneNumber", ["contact", "position", "number", "label", "country"])
    term_cols = _columns("contacts.ContactSearchTerm", ["contact", "user", "livemode", "kind", "term", "sort_name"])
    with raw.cursor() as cur:
        cur.execute("CREATE TEMP TABLE bench_contact_map (user_id text, k integer, id text, number text)")
        contact_rows, phone_rows, term_rows, map_rows = [], [], [], []
        serial = 0
        for user_id in users:
            for k in range(per_account):
                serial += 1
                name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
                contact_id = "ct_" + _digest_id(f"ct:{user_id}:{k}")
                sort_name = search.sort_key(name)
                contact_rows.append((contact_id, user_id, True, created, name, sort_name))
                numbers = [_us_number(serial)] + ([_us_number(serial + 7_000_003)] if k % 4 == 0 else [])
                for position, number in enumerate(numbers):
                    phone = phone_number_build(number=number, label="mobile" if position == 0 else "work",
                                               position=position)  # fmt: skip
                    phone_rows.append((contact_id, position, phone.number, phone.label, phone.country))
                kinds = [(search.NAME, word) for word in search.name_words(name)]
                digits = dict.fromkeys(suffix for number in numbers for suffix in search.digit_terms(number))
                kinds += [(search.DIGITS, suffix) for suffix in digits]
                term_rows += [(contact_id, user_id, True, kind, term, sort_name) for kind, term in kinds]
                map_rows.append((user_id, k, contact_id, numbers[0]))
        for table, cols, rows in (
            (_table("contacts.Contact"), contact_cols, contact_rows),
            (_table("contacts.ContactPhoneNumber"), phone_cols, phone_rows),
            (_table("contacts.ContactSearchTerm"), term_cols, term_rows),
            ("bench_contact_map", "user_id, k, id, number", map_rows),
        ):
            with cur.copy(f"COPY {table} ({cols}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)


def _digest_id(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()[:24]  # ids, not secrets: hex digits are base62


# --- SMS inboxes ------------------------------------------------------------------------

MESSAGE_FIELDS = ["id", "user", "livemode", "created", "number", "to_number", "from_sender", "body", "num_segments",
                  "code", "code_domain"]  # fmt: skip


def inboxes_build(*, users: list[str], per_account: int, now) -> None:
    """Each account's two shared SMS numbers and ``per_account`` messages on them, spread over a month."""
    from apps.accounts.security import sharing_update
    from apps.messages.services import message_build
    from apps.numbers.services import number_create

    rng = random.Random(SEED + 3)
    model = _model("inbox.Message")
    attributes = [model._meta.get_field(name).attname for name in MESSAGE_FIELDS]
    step = MESSAGE_SPAN_SECONDS / per_account
    rows = []
    for serial, user in enumerate(_model("accounts.User").objects.filter(pk__in=users).order_by("pk")):
        sharing_update(user=user, call_summaries=False, message_reading=True)
        numbers = [
            number_create(
                user=user,
                livemode=True,
                number=SMS_NUMBER.format(first + serial),
                type="mobile",
                sms=True,
                messages_opt_in=True,
            )
            for first in SMS_NUMBER_STARTS
        ]
        for k in range(per_account):
            body = MESSAGE_BODIES[k % len(MESSAGE_BODIES)].format(code=f"{rng.randrange(10**6):06d}")
            at = now - timedelta(seconds=60 + (per_account - 1 - k) * step)
            message = message_build(number=numbers[k % 2], sender=rng.choice(MESSAGE_SENDERS), body=body, at=at)
            message.id = "msg_" + _digest_id(f"msg:{user.pk}:{k}")
            rows.append(tuple(getattr(message, name) for name in attributes))
    columns = _columns("inbox.Message", MESSAGE_FIELDS)
    with connection.connection.cursor() as cur, cur.copy(f"COPY {model._meta.db_table} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


# --- Calls and the ledger -------------------------------------------------------------------


def rows_insert(*, users: list[str], size: dict[str, int], start) -> None:
    params = {
        "users": users,
        "count": size["calls"],
        "start": start,
        "currency": settings.SERVICE_CURRENCY,
        "caller_id": CALLER_ID,
        "own_number": OWN_NUMBER,
        "areas": list(AREA_CODES),
        "contacts": size["contacts"],
    }
    call_fields = [
        "id", "user", "livemode", "created", "direction", "status", "from_number", "to_number", "to_country",
        "contact_id", "answered_at", "ended_at", "duration", "per_minute_amount_decimal", "first_seconds",
        "next_seconds", "currency",
    ]  # fmt: skip
    ledger_fields = [
        "id", "user", "livemode", "created", "amount", "currency", "type", "source", "description", "ending_balance",
    ]  # fmt: skip
    transcript_fields = [
        "id", "call", "livemode", "created", "summary", "action_items", "reference_numbers", "language",
    ]  # fmt: skip
    ledger = _table("billing.BalanceTransaction")
    statements = [
        (CALLS_SQL, _table("calls.Call"), _columns("calls.Call", call_fields), {"count": size["calls"]}),
        (
            TRANSCRIPTS_SQL,
            _table("calls.Transcript"),
            _columns("calls.Transcript", transcript_fields),
            {},
        ),
        (LEDGER_SQL, ledger, _columns("billing.BalanceTransaction", ledger_fields), {"count": size["ledger"]}),
        (
            BALANCES_SQL,
            _table("billing.Balance"),
            _columns("billing.Balance", ["user", "livemode", "amount", "currency", "updated"]),
            {},
        ),
    ]
    with connection.connection.cursor() as cur:
        for sql, table, columns, extra in statements:
            text = sql.format(table=table, columns=columns, calls=_table("calls.Call"), ledger=ledger)
            cur.execute(text, {**params, **extra})


def dataset_check(*, users: list[str]) -> None:
    sql = CHECK_SQL.format(ledger=_table("billing.BalanceTransaction"), balances=_table("billing.Balance"))
    with connection.connection.cursor() as cur:
        cur.execute(sql, {"users": users})
        broken_chain, wrong_balances = (row[0] for row in cur.fetchall())
    if broken_chain or wrong_balances:
        raise RuntimeError(f"ledger chain broken on {broken_chain} rows, {wrong_balances} balances wrong")


def dataset_build(*, heavy: list[str], scale: float, start, created, now) -> dict:
    """Every history row; returns what the request lines need (numbers to look up, words to search)."""
    size = sizes(scale)
    deck_import(size["deck"])
    contacts_copy(users=heavy, per_account=size["contacts"], created=created)
    rows_insert(users=heavy, size=size, start=start)
    inboxes_build(users=heavy, per_account=size["messages"], now=now)
    dataset_check(users=heavy)
    return {"size": size, "numbers": lookup_numbers(400), "words": list(QUERY_WORDS)}
