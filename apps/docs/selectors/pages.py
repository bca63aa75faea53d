"""What the other pages read: versions, the security contact, OAuth metadata, webhooks and calls facts."""

from dataclasses import dataclass

from django.conf import settings

from apps.api_v1.public import CURRENT_VERSION, VERSIONS
from apps.oauth.discovery import authorization_server_metadata, security_txt
from apps.oauth.selectors import permitted_resources


def contact_unset_on_local_address() -> str | None:
    """The host of BASE_URL when no SECURITY_CONTACT is set and that host is an IP address or localhost: the
    derived security@<host> reaches nobody there. None otherwise."""
    import ipaddress
    from urllib.parse import urlsplit

    if getattr(settings, "SECURITY_CONTACT", ""):
        return None
    host = urlsplit(settings.BASE_URL).hostname or ""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return host if host == "localhost" or host.endswith(".localhost") else None
    return host


def security_contact() -> str:
    """The Contact line of /.well-known/security.txt, from the function that writes the file."""
    for line in security_txt().splitlines():
        if line.startswith("Contact:"):
            return line.split(":", 1)[1].strip()
    return ""


@dataclass(frozen=True)
class VersionRow:
    name: str
    current: bool
    deprecated_on: object
    sunset_on: object


def version_rows() -> list[VersionRow]:
    return [
        VersionRow(v.name, v.name == CURRENT_VERSION, v.deprecated_on, v.sunset_on)
        for v in sorted(VERSIONS.values(), key=lambda v: v.name, reverse=True)
    ]


def authorization_server() -> dict:
    return authorization_server_metadata()


def protected_resources() -> list[str]:
    return list(permitted_resources())


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:g} s"
    if seconds < 3600:
        return f"{seconds / 60:g} min"
    return f"{seconds / 3600:g} h"


def webhook_facts() -> dict:
    """The event types and the retry schedule of /docs/webhooks, from the webhooks app's tables."""
    from apps.webhooks.public import (
        EVENT_TYPES,
        FAILING_AFTER,
        JITTER,
        RESEND_LIMIT,
        RETRY_DELAYS,
        TEST_MODE_RETRY_DELAYS,
    )

    return {
        "event_types": list(EVENT_TYPES.values()),
        "retries": [_duration(d) for d in RETRY_DELAYS],
        "test_retries": [_duration(d) for d in TEST_MODE_RETRY_DELAYS],
        "jitter_percent": round(JITTER * 100),
        "failing_days": FAILING_AFTER.days,
        "endpoint_limit": settings.WEBHOOK_ENDPOINT_LIMIT,
        "timeout_seconds": settings.WEBHOOK_TIMEOUT_SECONDS,
        "retention_days": settings.WEBHOOK_EVENT_RETENTION_DAYS,
        "loopback_allowed": settings.WEBHOOK_ALLOW_LOOPBACK,
        "resend_limit": RESEND_LIMIT,
    }


def call_limits() -> dict:
    """The spend limits and velocity checks of callback calls, from the settings apps/calls/limits.py enforces."""
    from decimal import Decimal

    from apps.core.money import display, to_minor

    currency = settings.SERVICE_CURRENCY

    def amount(setting: str) -> str:
        return display(to_minor(Decimal(setting), currency), currency)

    return {
        "account_daily": amount(settings.CALL_SPEND_LIMIT_DAILY),
        "credential_daily": amount(settings.CALL_SPEND_LIMIT_CREDENTIAL_DAILY),
        "calls_per_number_hourly": settings.CALLS_PER_NUMBER_HOURLY,
        "destinations_daily": settings.CALL_DESTINATIONS_DAILY,
    }


def simulator_facts() -> dict:
    """The simulator's magic numbers for /docs/calls, from the very table it plays (apps/telephony/simulator.py)."""
    from apps.core.phones import readable
    from apps.telephony.public import simulator

    def rows(behaviours, other):
        return [(readable(b.number) if b.number else "any other", b.says) for b in (*behaviours, other)]

    return {
        "destinations": rows(simulator.DESTINATIONS, simulator.ANY_DESTINATION),
        "your_numbers": rows(simulator.YOUR_NUMBERS, simulator.ANY_YOUR_NUMBER),
        "transcription_starts_seconds": simulator.TRANSCRIPTION_STARTS_SECONDS,
        "transcription_seconds": simulator.TRANSCRIPTION_SECONDS,
        "transcription_fails_to": readable(simulator.TRANSCRIPTION_FAILS_TO),
        "code_sender": readable(simulator.CODE_SENDER),
        "your_number_to_try": simulator.YOUR_NUMBERS[0].number,
        "limits": call_limits(),
        # Which carrier places this service's live-mode calls (test mode is always the simulator).
        "live_on_twilio": settings.TELEPHONY_CARRIER == "twilio",
    }
