"""Time in JSON is Unix seconds (docs/design.md)."""

from datetime import datetime


def unix_seconds(value: datetime | None) -> int | None:
    return None if value is None else int(value.timestamp())
