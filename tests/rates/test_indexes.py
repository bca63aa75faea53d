"""The deck's indexes on PostgreSQL: the primary key serves the longest-prefix IN, one composite index
serves a country's estimate, and no varchar_pattern_ops companion costs the import (nothing uses LIKE)."""

import pytest
from django.db import connection

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="index definitions are PostgreSQL's"),
]


def indexes() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = %s",
            ["rates_rate"],
        )
        return dict(cursor.fetchall())


def test_the_deck_has_exactly_its_two_indexes():
    found = indexes()
    assert set(found) == {"rates_rate_pkey", "rates_rate_country_idx"}
    assert found["rates_rate_pkey"].endswith("USING btree (prefix)")
    assert found["rates_rate_country_idx"].endswith(
        "USING btree (country, currency, per_minute, first_seconds, next_seconds)"
    )
