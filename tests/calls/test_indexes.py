"""A calls page is one indexed range scan (PostgreSQL): the index leads with the account and
mode, then (created, id) descending, so the page needs no sort and a cursor is a seek.

The statements are the ones a real request sends (captured), explained on a table
where other accounts' calls outnumber the account's. Measured at scale in
docs/decisions/calls.md (100,000 calls of one account in a table of 1,000,000).
"""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.calls.models import Call
from tests.support.factories import UserFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="query plans are PostgreSQL's"),
]


@pytest.fixture
def table(owner):
    others = [UserFactory() for _ in range(3)]
    now = timezone.now()
    rows = []
    for n in range(4000):
        user = owner if n % 4 == 0 else others[n % 3]
        rows.append(
            Call(
                user=user,
                livemode=n % 10 != 0,
                created=now - timedelta(seconds=7 * n),
                direction="inbound" if n % 3 == 0 else "outbound",
                status=("completed", "busy", "in_progress", "no_answer")[n % 4 if n % 8 else 0],
                from_number="+14155550100",
                to_number="+4915112345678",
                answered_at=now,
                ended_at=now,
                duration=60,
                per_minute_amount_decimal=4.5,
            )
        )
    Call.objects.bulk_create(rows)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE calls_call")
    return Call.objects.filter(user=owner, livemode=True).order_by("-created", "-id")


def page_plan(caller, params) -> dict:
    with CaptureQueriesContext(connection) as captured:
        response = caller.get("/v1/calls", params)
    assert response.status_code == 200, response.content
    (page,) = [q["sql"] for q in captured.captured_queries if "LIMIT 11" in q["sql"] and "calls_call" in q["sql"]]
    with connection.cursor() as cursor:
        # Plans as for a large table: never a sequential scan of everyone's calls.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        cursor.execute("EXPLAIN (FORMAT JSON) " + page)
        (explained,) = cursor.fetchone()  # psycopg decodes the JSON already
        return explained[0]["Plan"]


def nodes(plan):
    yield plan
    for child in plan.get("Plans", []):
        yield from nodes(child)


def calls_scan(plan) -> dict:
    (scan,) = [n for n in nodes(plan) if n.get("Relation Name") == "calls_call"]
    return scan


@pytest.mark.parametrize(
    ("params", "index"),
    [
        ({}, "calls_call_page_idx"),
        ({"expand[]": ["transcript", "contact"]}, "calls_call_page_idx"),
        ({"direction": "inbound"}, "calls_call_direction_idx"),
        ({"status": "in_progress"}, "calls_call_status_idx"),
    ],
)
def test_a_first_page_is_one_index_scan_without_sort(caller, summaries_on, table, params, index):
    plan = page_plan(caller, params)
    assert not [n for n in nodes(plan) if n["Node Type"] in ("Sort", "Incremental Sort")]
    scan = calls_scan(plan)
    assert scan["Node Type"] == "Index Scan"
    assert scan["Index Name"] == index


@pytest.mark.parametrize(("cursor", "bound"), [("starting_after", "created <="), ("ending_before", "created >=")])
def test_a_cursor_page_seeks_into_the_index(caller, table, cursor, bound):
    middle = table[len(table) // 2]
    plan = page_plan(caller, {cursor: middle.id})
    assert not [n for n in nodes(plan) if n["Node Type"] in ("Sort", "Incremental Sort")]
    scan = calls_scan(plan)
    assert scan["Index Name"] == "calls_call_page_idx"
    # The cursor bounds the index range itself, not a filter over every newer row.
    assert bound in scan["Index Cond"]
