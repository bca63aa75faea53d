"""The limit of each read: the floor view plus that read's own statement(s), run through a raw psycopg
cursor (prepared) on Django's connection, the rows written by the renderer /v1 uses (DRF's
JSONRenderer). What a request costs with nothing but its database work and its bytes (for the
message list, its audit row's INSERT too: that write is the read's own statement): no
credential, no limiter, no model instances, no serializer. Mounted only with BENCH_FLOOR, under
the bench's own URLconf (bench/urls.py); for GET /v1/me the calibration row (the floor plus one
Redis round trip) is the limit.

The statements are the ones the service sends for each read (bench/statements.py shows them);
tests/bench/test_references.py checks that each returns the rows the service answers with.
"""

import json
from collections import Counter

from django.db import connection
from django.http import HttpResponse
from django.utils import timezone
from rest_framework.renderers import JSONRenderer

from apps.contacts import search
from apps.core.ids import new_id

_json = JSONRenderer()
PREFIX_DIGITS = 15
PAGE = 10

RATE = (
    'SELECT "prefix", "country", "label", "currency", "per_minute", "first_seconds", "next_seconds" '
    'FROM "rates_rate" WHERE "prefix" IN (' + ", ".join(["%s"] * PREFIX_DIGITS) + ') ORDER BY "prefix" DESC LIMIT 1'
)
LEDGER = (
    'SELECT "id", "user_id", "livemode", "created", "amount", "currency", "type", "source", "description", '
    '"ending_balance" FROM "billing_balancetransaction" WHERE ("livemode" AND "user_id" = %s) '
    'ORDER BY "created" DESC, "id" DESC LIMIT 11'
)
CALLS = (
    'SELECT c."id", c."user_id", c."livemode", c."created", c."direction", c."status", c."from_number", '
    'c."to_number", c."to_country", c."contact_id", c."answered_at", c."ended_at", c."duration", '
    'c."per_minute_amount_decimal", c."first_seconds", c."next_seconds", c."currency", c."quote_id", '
    'c."your_number", c."caller_id", c."record", c."max_duration", c."end_reason", c."ringing_you_at", '
    'c."ringing_at", c."credential_id", c."spend", c."hold_id", c."carrier", c."carrier_ref", '
    't."id" AS "transcript_ref" FROM "calls_call" c LEFT OUTER JOIN "calls_transcript" t ON (c."id" = t."call_id") '
    'WHERE (c."livemode" AND c."user_id" = %s) ORDER BY c."created" DESC, c."id" DESC LIMIT 11'
)
CONTACTS = (
    'SELECT "id", "user_id", "livemode", "created", "name", "sort_name" FROM "contacts_contact" '
    'WHERE ("livemode" AND "user_id" = %s AND "id" IN (SELECT "subquery"."contact_id" FROM '
    '(SELECT DISTINCT U0."contact_id" AS "contact_id", U0."sort_name" FROM "contacts_contactsearchterm" U0 '
    'WHERE (U0."kind" = %s AND U0."livemode" AND U0."term"::text LIKE '
    "REPLACE(REPLACE(REPLACE(%s, E'\\\\', E'\\\\\\\\'), E'%%', E'\\\\%%'), E'_', E'\\\\_') || '%%' "
    'AND U0."user_id" = %s AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text((%s)::jsonb) AS word(value) '
    'WHERE NOT EXISTS (SELECT 1 FROM "contacts_contactsearchterm" every_word WHERE every_word."contact_id" = '
    'U0."contact_id" AND every_word."kind" = %s AND substr(every_word."term", 1, length(word.value)) = '
    'word.value) OFFSET 0)) ORDER BY U0."sort_name" ASC, 1 ASC LIMIT 11) subquery)) '
    'ORDER BY "sort_name" ASC, "id" ASC'
)
NUMBERS = (
    'SELECT "id", "contact_id", "position", "number", "label", "country" FROM "contacts_contactphonenumber" '
    'WHERE "contact_id" = ANY(%s) ORDER BY "position" ASC, "id" ASC'
)

MESSAGES = (
    'SELECT m."id", m."user_id", m."livemode", m."created", m."number_id", m."to_number", m."from_sender", m."body", '
    'm."num_segments", m."code", m."code_domain" FROM "inbox_message" m '
    'INNER JOIN "numbers_number" n ON (m."number_id" = n."id") WHERE (n."messages_opt_in" AND '
    'EXISTS(SELECT 1 AS "a" FROM "accounts_sharingsettings" U0 WHERE (U0."message_reading" AND '
    'U0."user_id" = (m."user_id")) LIMIT 1) AND m."livemode" AND m."user_id" = %s) '
    'ORDER BY m."created" DESC, m."id" DESC LIMIT 11'
)
# A read that returned messages is an audit event for each number it read (apps/messages/reading.py):
# one row per number, written in one statement.
AUDIT_COLUMNS = (
    '"id", "event_type", "user_id", "actor_type", "actor_id", "client_id", "key_id", "ip_address", "request_id", '
    '"data", "created"'
)
AUDIT_ROW = "(%s, 'messages.read', %s, 'api_key', 'key_limit', '', 'key_limit', '127.0.0.1'::inet, %s, %s::jsonb, %s)"


def _rows(sql: str, params) -> tuple[list[str], list[tuple]]:
    connection.ensure_connection()
    with connection.connection.cursor() as cursor:
        cursor.execute(sql, params, prepare=True)
        return [column.name for column in cursor.description], cursor.fetchall()


def _write(sql: str, params) -> None:
    with connection.connection.cursor() as cursor:
        cursor.execute(sql, params, prepare=True)


def _page(sql: str, params) -> list[dict]:
    names, rows = _rows(sql, params)
    return [dict(zip(names, row, strict=True)) for row in rows]


def _answer(data) -> HttpResponse:
    return HttpResponse(_json.render(data), content_type="application/json")


def _list(rows: list[dict]) -> HttpResponse:
    return _answer({"object": "list", "data": rows[:PAGE], "has_more": len(rows) > PAGE})


def rate(request):
    digits = "".join(c for c in request.GET.get("to", "") if c.isdigit())[:PREFIX_DIGITS]
    found = _page(RATE, [digits[:n].ljust(n, "x") for n in range(1, PREFIX_DIGITS + 1)])
    return _answer(found[0] if found else None)


def ledger(request):
    return _list(_page(LEDGER, [request.GET["user"]]))


def calls(request):
    return _list(_page(CALLS, [request.GET["user"]]))


def contacts(request):
    user = request.GET["user"]
    query = search.parse_query(request.GET["query"])
    first, *others = sorted(query.terms, key=len, reverse=True)
    found = _page(CONTACTS, [user, query.kind, first, user, json.dumps(others), query.kind])
    numbers: dict = {row["id"]: [] for row in found[:PAGE]}
    if numbers:
        for row in _page(NUMBERS, [list(numbers)]):
            numbers[row.pop("contact_id")].append(row)
    for row in found[:PAGE]:
        row["phone_numbers"] = numbers[row["id"]]
    return _list(found)


def messages(request):
    user = request.GET["user"]
    found = _page(MESSAGES, [user])
    read = Counter(row["to_number"] for row in found[:PAGE])
    if read:
        now, request_id = timezone.now(), new_id("req_")
        values = []
        for number, count in read.items():
            data = {"number": number, "count": count, "summary": f"read {count} messages of {number}", "livemode": True}
            values += [new_id("evt_"), user, request_id, json.dumps(data), now]
        rows = ", ".join([AUDIT_ROW] * len(read))
        _write(f'INSERT INTO "audit_auditevent" ({AUDIT_COLUMNS}) VALUES {rows}', values)
    return _list(found)
