"""The one table of scopes (docs/spec.md 2.3)."""

from dataclasses import dataclass

from .challenges import insufficient_scope
from .principal import Principal


@dataclass(frozen=True)
class Scope:
    name: str
    sentence: str
    sensitive: bool = False
    # Not sensitive by docs/spec.md 2.3, yet a consent page leaves it unticked until the
    # user ticks it (docs/decisions/consent-defaults.md): it sends account events elsewhere.
    opt_in: bool = False

    @property
    def starts_unticked(self) -> bool:
        """Whether the consent page offers it unticked to an app that does not hold it yet."""
        return self.sensitive or self.opt_in


SCOPES: dict[str, Scope] = {
    s.name: s
    for s in (
        Scope("rates:read", "See what calls cost per minute to a number or a country, from the published price list."),
        Scope(
            "credits:read",
            "See your credit balance and its transactions: top-ups, charges for calls, numbers and "
            "transcripts, refunds and adjustments.",
        ),
        Scope(
            "calls:read",
            "See your call history and live calls: the numbers, times, durations, status and cost of each call.",
        ),
        Scope("calls:place", "Place calls from your account, which spends your credit.", sensitive=True),
        Scope(
            "contacts:read",
            "See and search your contacts: their names and phone numbers "
            "(also shows contact names in your call history).",
        ),
        Scope(
            "numbers:read",
            "See your virtual numbers (country, type, calls and SMS, renewal, and whether apps may read "
            "their messages) and your verified caller IDs.",
        ),
        Scope("messages:read", "Read new codes and messages in your SMS inbox.", sensitive=True),
        Scope("messages:history", "Read the history of your SMS inbox.", sensitive=True),
        Scope(
            "transcripts:read",
            "Read AI summaries of your calls (summary, action items, reference numbers), only while you allow call "
            "summaries in your sharing settings.",
            sensitive=True,
        ),
        Scope("webhooks:manage", "Manage webhooks that notify other services of account events.", opt_in=True),
    )
}

ALL_SCOPES: tuple[str, ...] = tuple(SCOPES)
SENSITIVE_SCOPES: frozenset[str] = frozenset(n for n, s in SCOPES.items() if s.sensitive)
READ_ONLY_STARTER_SET: tuple[str, ...] = ("rates:read", "credits:read", "calls:read", "contacts:read")


def is_known(scope: str) -> bool:
    return scope in SCOPES


def holds(principal, scope: str | None) -> bool:
    """Whether the caller's credential holds ``scope`` (None: any scope will do)."""
    return scope is None or (isinstance(principal, Principal) and scope in principal.scopes)


def require(
    principal, scope: str | None, *, resource_path: str, message: str | None = None, param: str | None = None,
    what: str = "This operation",
) -> None:  # fmt: skip
    """The one scope check of /v1 (DRF's HasScope, the fast path, a part of an answer) and /mcp (a tool):
    a credential without ``scope`` is refused with 403 insufficient_scope and the RFC 6750 challenge
    naming the scope (docs/spec.md 5.9)."""
    if not holds(principal, scope):
        raise insufficient_scope(resource_path, scope, message, principal=principal, param=param, what=what)


def parse_scope_string(value: str) -> list[str]:
    """Space-separated scopes, order kept, duplicates dropped."""
    return list(dict.fromkeys(value.split()))
