"""What other apps may use of safeguards (the only module they import; .importlinter).

``calls`` asks ``allowance_left`` at a quote and ``placement_check`` at placing; ``webhooks`` asks
``webhook_check`` before an endpoint is created or re-aimed; ``oauth`` records what the consent
page chose with ``rules_set`` and offers ``allowance_choices``; the dashboard shows and changes the
rules and serves the confirmation page (``confirmation_payload``, ``decision_record``).
"""

from .gates import (
    WEBHOOK_DECISION_LIFETIME,
    allowance_left,
    confirmation_payload,
    placement_check,
    webhook_check,
)
from .models import ConnectionRules, Decision
from .rules import allowance_choices, default_allowance, rules_get, shown
from .services import decision_record, parse_allowance, rules_set

__all__ = [
    "WEBHOOK_DECISION_LIFETIME",
    "ConnectionRules",
    "Decision",
    "allowance_choices",
    "allowance_left",
    "confirmation_payload",
    "decision_record",
    "default_allowance",
    "parse_allowance",
    "placement_check",
    "rules_get",
    "rules_set",
    "shown",
    "webhook_check",
]
