"""One date format on every page and in every email: apps/core/templatetags/when.py owns it."""

import re
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

from django.template import Context, Template

from apps.core.templatetags.when import day, when

ROOT = Path(__file__).resolve().parents[2]


def test_a_moment_is_day_month_year_time_and_utc():
    assert when(datetime(2026, 11, 26, 16, 21, 59, tzinfo=UTC)) == "26 Nov 2026, 16:21 UTC"
    assert when(datetime(2026, 3, 4, 7, 5, tzinfo=UTC)) == "4 Mar 2026, 07:05 UTC"


def test_a_moment_in_another_zone_is_written_in_utc():
    berlin = timezone(timedelta(hours=1))
    assert when(datetime(2026, 11, 26, 17, 21, tzinfo=berlin)) == "26 Nov 2026, 16:21 UTC"


def test_nothing_is_empty_or_what_the_page_says():
    assert when(None) == ""
    assert when(None, "never") == "never"
    assert day(None) == ""
    assert day(date(2026, 10, 1)) == "1 Oct 2026"


def test_every_template_has_the_filter_without_loading_it():
    assert Template("{{ moment|when }}").render(Context({"moment": datetime(2026, 1, 2, 3, 4, tzinfo=UTC)})) == (
        "2 Jan 2026, 03:04 UTC"
    )


def test_no_template_writes_a_date_its_own_way():
    # Django's date filter is kept for the machine-readable datetime attribute (|date:'c') only.
    templates = [*ROOT.glob("templates/**/*.*"), *ROOT.glob("apps/*/templates/**/*.*")]
    assert templates
    for path in templates:
        text = path.read_text()
        for found in re.findall(r"\|date:(['\"][^'\"]*['\"])", text):
            assert found in ("'c'", '"c"'), f"{path.relative_to(ROOT)} writes a date as {found}"
        assert "toLocaleDateString" not in text and "toLocaleString" not in text, path
