"""The one table of API versions (docs/spec.md 9).

A version is superseded once ``deprecated_on`` is set: its responses carry
``Deprecation`` and ``Sunset``; after ``sunset_on`` it answers 410.
"""

from dataclasses import dataclass
from datetime import UTC, date, datetime
from email.utils import format_datetime


@dataclass(frozen=True)
class ApiVersion:
    name: str
    deprecated_on: date | None = None
    sunset_on: date | None = None

    def is_sunset(self, today: date) -> bool:
        return self.sunset_on is not None and today >= self.sunset_on

    def deprecation_headers(self) -> dict[str, str]:
        headers = {}
        if self.deprecated_on is not None:
            moment = datetime.combine(self.deprecated_on, datetime.min.time(), UTC)
            headers["Deprecation"] = f"@{int(moment.timestamp())}"  # RFC 9745
        if self.sunset_on is not None:
            moment = datetime.combine(self.sunset_on, datetime.min.time(), UTC)
            headers["Sunset"] = format_datetime(moment, usegmt=True)  # RFC 8594
        return headers


CURRENT_VERSION = "2026-10-01"
VERSIONS: dict[str, ApiVersion] = {CURRENT_VERSION: ApiVersion(CURRENT_VERSION)}


def current_version() -> str:
    """The version new keys and connections are pinned to (settings.API_VERSION_IN_FORCE names this)."""
    return CURRENT_VERSION


def known_versions() -> list[str]:
    return sorted(VERSIONS)


def get_version(name: str) -> ApiVersion | None:
    return VERSIONS.get(name)
