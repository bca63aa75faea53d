"""The allowance choices and each connection's rules as read (selectors of this app)."""

from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings

from apps.core.money import display, to_minor

from .models import ConnectionRules

# The allowances a user may choose for an app, in major units of SERVICE_CURRENCY a day.
ALLOWANCE_CHOICES = (Decimal("1.00"), Decimal("5.00"), Decimal("20.00"))
DEFAULT_ALLOWANCE = Decimal("5.00")


def minor(major: Decimal) -> int:
    return int(to_minor(major, settings.SERVICE_CURRENCY))


def allowance_choices() -> list[int]:
    """The allowances offered, in minor units, smallest first."""
    return [minor(choice) for choice in ALLOWANCE_CHOICES]


def default_allowance() -> int:
    return minor(DEFAULT_ALLOWANCE)


def credential_cap() -> int:
    """The settings' daily cap of any one key or app: an allowance never lifts it."""
    return minor(Decimal(settings.CALL_SPEND_LIMIT_CREDENTIAL_DAILY))


def shown(amount: int) -> str:
    return display(amount, settings.SERVICE_CURRENCY)


@dataclass(frozen=True)
class Rules:
    daily_allowance: int
    ask_first: bool
    chosen: bool  # False: the connection predates the rules (no row)

    @property
    def allowance_display(self) -> str:
        return shown(self.daily_allowance)


def rules_get(*, user_id, client_id: str) -> Rules:
    row = ConnectionRules.objects.filter(user_id=user_id, client_id=client_id).first()
    return _rules(row)


def rules_for_connections(*, user_id, client_ids) -> dict[str, Rules]:
    """Each connection's rules, keyed by client id (one query)."""
    rows = {row.client_id: row for row in ConnectionRules.objects.filter(user_id=user_id, client_id__in=client_ids)}
    return {client_id: _rules(rows.get(client_id)) for client_id in client_ids}


def _rules(row: ConnectionRules | None) -> Rules:
    if row is None:
        return Rules(daily_allowance=credential_cap(), ask_first=False, chosen=False)
    return Rules(daily_allowance=min(row.daily_allowance, credential_cap()), ask_first=row.ask_first, chosen=True)


def connected_apps_url() -> str:
    return f"{settings.APP_URL}/settings/connected-apps"
