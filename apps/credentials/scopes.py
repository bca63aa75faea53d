"""The one table of scopes (docs/spec.md 2.3)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Scope:
    name: str
    sentence: str
    sensitive: bool = False


SCOPES: dict[str, Scope] = {
    s.name: s
    for s in (
        Scope("rates:read", "See call rates to destinations."),
        Scope("credits:read", "See your credit balance and transactions."),
        Scope("calls:read", "See your call history and the status of your calls."),
        Scope("calls:place", "Place calls from your account, which spends your credit.", sensitive=True),
        Scope("contacts:read", "Search your contacts."),
        Scope("numbers:read", "See your virtual numbers and caller ID."),
        Scope("messages:read", "Read new codes and messages in your SMS inbox.", sensitive=True),
        Scope("messages:history", "Read the history of your SMS inbox.", sensitive=True),
        Scope("transcripts:read", "Read transcripts and AI summaries of your calls.", sensitive=True),
        Scope("webhooks:manage", "Manage webhooks that notify other services of account events."),
    )
}

ALL_SCOPES: tuple[str, ...] = tuple(SCOPES)
SENSITIVE_SCOPES: frozenset[str] = frozenset(n for n, s in SCOPES.items() if s.sensitive)
READ_ONLY_STARTER_SET: tuple[str, ...] = ("rates:read", "credits:read", "calls:read", "contacts:read")


def is_known(scope: str) -> bool:
    return scope in SCOPES


def parse_scope_string(value: str) -> list[str]:
    """Space-separated scopes, order kept, duplicates dropped."""
    return list(dict.fromkeys(value.split()))
