"""docs/operations.md names every schedule the apps declare and every metric family /metrics serves."""

from pathlib import Path

from apps.jobs import schedules
from tests.support.metrics import FAMILIES

OPERATIONS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def test_the_schedule_table_lists_every_schedule_with_its_period():
    text = OPERATIONS.read_text()
    table = [line for line in text.splitlines() if line.startswith("| `") and "." in line.split("|")[1]]
    rows = {line.split("|")[1].strip(" `"): line.split("|")[2].strip() for line in table}
    declared = {
        item.kind: {3600: "hour", 86400: "day"}[int(item.every.total_seconds())] for item in schedules.schedules()
    }
    assert {kind: rows.get(kind) for kind in declared} == declared


def test_the_metrics_catalogue_lists_every_family():
    text = OPERATIONS.read_text()
    for family in FAMILIES:
        name = f"{family}_total" if family.endswith(("_requests", "_refusals", "_lookups")) else family
        assert f"| `{name}` |" in text, family
