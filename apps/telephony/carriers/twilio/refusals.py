"""Twilio's refusals of a placement, as the contract's codes (apps/core/errors.py) with a sentence to act on.

Placing a callback is one ``POST /Calls`` to your own phone, showing the caller ID the
quote named; Twilio refuses it synchronously with an error code
(https://www.twilio.com/docs/api/errors). A refusal is the user's to act on, so placing
answers it as an error and writes nothing (the quote stays open); an error this table does
not know places the call as ``failed``.
"""

from apps.core.phones import readable

from ..base import CallbackRequest, CarrierRefused

# Twilio's error codes of the operator's account (suspended, closed, out of funds, no permission).
ACCOUNT_NOT_IN_SERVICE = frozenset({10001, 20003, 20005, 20008, 21606})
INVALID_TO = frozenset({21211, 21217, 21614})
UNVERIFIED_CALLER_ID = frozenset({21210, 21212, 21213})
GEO_PERMISSIONS = frozenset({13227, 21215, 21216})
TOO_MANY_REQUESTS = frozenset({20429})
CARRIER_BUSY_RETRY_AFTER = 30
ACCOUNT_RETRY_AFTER = 300


def refusal(error, request: CallbackRequest) -> CarrierRefused:
    """The ``CarrierRefused`` for Twilio's ``TwilioRestException`` ``error``."""
    code, status = getattr(error, "code", None), getattr(error, "status", None)
    if code in INVALID_TO:
        return CarrierRefused(
            f"Twilio cannot call your number {readable(request.your_number)}: it is not a valid phone number. "
            "Verify the phone you answer on and make it your default caller ID, then ask for a new quote.",
            code="invalid_request",
            param="quote",
        )
    if code in UNVERIFIED_CALLER_ID:
        return CarrierRefused(
            f"This service's Twilio account may not show {readable(request.caller_id)} as the caller ID: it is not "
            "verified there. Ask for a new quote with another caller_id, or ask the operator to verify it.",
            code="invalid_request",
            param="quote",
        )
    if code in GEO_PERMISSIONS:
        return CarrierRefused(
            f"This service's Twilio account may not call {readable(request.your_number)} (its voice geographic "
            "permissions leave that country out). Use a phone in another country, or ask the operator to allow it.",
            code="destination_not_allowed",
            param="quote",
        )
    if code in TOO_MANY_REQUESTS or status == 429:
        return CarrierRefused(
            f"The carrier is busy right now: place the quote again in {CARRIER_BUSY_RETRY_AFTER} seconds.",
            code="service_unavailable",
            retry_after=CARRIER_BUSY_RETRY_AFTER,
        )
    if code in ACCOUNT_NOT_IN_SERVICE or status in (401, 403):
        return CarrierRefused(
            "This service cannot place calls right now: its carrier account is not in service (out of funds or "
            "suspended). Nothing was charged; try again later.",
            code="service_unavailable",
            retry_after=ACCOUNT_RETRY_AFTER,
        )
    if status is not None and status >= 500:
        return unreachable()
    return CarrierRefused(f"Twilio refused the call (error {code}).")


def unreachable() -> CarrierRefused:
    """Twilio did not answer (a timeout, a connection refused, its 5xx)."""
    return CarrierRefused(
        f"The carrier did not answer: place the quote again in {CARRIER_BUSY_RETRY_AFTER} seconds.",
        code="service_unavailable",
        retry_after=CARRIER_BUSY_RETRY_AFTER,
    )
