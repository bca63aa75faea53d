"""What the endpoint writes take from a request: each field checked, or the contract's 400 with its ``param``.

A caller's text quoted in a message is cut short and passes through the echo rule.
"""

from apps.core.echo import echoed
from apps.core.errors import ApiError

from . import events as types

MAX_DESCRIPTION = 500
# Every type an endpoint may subscribe to, each once.
MAX_ENABLED_EVENTS = len(types.SUBSCRIBABLE)
# What an error quotes of a caller's text, and the most of a field's name it names as ``param``.
QUOTED_LENGTH = 40
QUOTED_PARAM = 100
MAX_ROTATION_OVERLAP = 7 * 24 * 3600
DEFAULT_ROTATION_OVERLAP = 24 * 3600


def _quoted(text: str) -> str:
    """A caller's text as a message quotes it: short, without the characters that reorder or hide text."""
    return repr(echoed(text[:QUOTED_LENGTH]))


def validate_enabled_events(value, *, scopes) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ApiError(
            "invalid_request",
            'enabled_events must be a non-empty list of event types, or ["*"] for every type you may receive.',
            param="enabled_events",
        )
    # Counted before any item is read: a list longer than the types there are cannot be right.
    if len(value) > MAX_ENABLED_EVENTS:
        raise ApiError(
            "invalid_request",
            f"enabled_events lists at most {MAX_ENABLED_EVENTS} event types, each once.",
            param="enabled_events",
        )
    chosen = list(dict.fromkeys(value))
    if len(chosen) < len(value):
        repeated = next(v for n, v in enumerate(value) if v in value[:n])
        raise ApiError(
            "invalid_request", f"enabled_events lists {_quoted(repeated)} more than once.", param="enabled_events"
        )
    if types.ALL in chosen:
        if len(chosen) > 1:
            raise ApiError(
                "invalid_request",
                '"*" stands alone in enabled_events: it already means every type.',
                param="enabled_events",
            )
        return chosen
    unknown = [v for v in chosen if v not in types.SUBSCRIBABLE]
    if unknown:
        raise ApiError(
            "invalid_request",
            f"Unknown event type {_quoted(unknown[0])}; the types are {', '.join(types.SUBSCRIBABLE)}.",
            param="enabled_events",
        )
    require_readable(chosen, scopes=scopes)
    return chosen


def require_readable(enabled_events: list[str], *, scopes) -> None:
    """400 unless a credential holding ``scopes`` may read every type listed (``"*"``: whatever it can read)."""
    refused = [v for v in enabled_events if v != types.ALL and not types.scopes_allow(v, scopes)]
    if refused:
        needed = types.EVENT_TYPES[refused[0]].scope
        raise ApiError(
            "invalid_request",
            f"This credential may not receive {refused[0]}: it needs the scope {needed}. Whoever sets an "
            "endpoint's url or enabled_events owns it, so every type it receives must be one this credential "
            "may read.",
            param="enabled_events",
        )


def validate_description(value) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > MAX_DESCRIPTION:
        raise ApiError(
            "invalid_request",
            f"description must be a string of at most {MAX_DESCRIPTION} characters.",
            param="description",
        )
    return value


def unknown_fields(data: dict, allowed: set[str]) -> None:
    """Refuse a field the operation does not take; its name is the caller's text, quoted short."""
    extra = sorted(set(data) - allowed)
    if extra:
        raise ApiError("invalid_request", f"Unknown parameter {_quoted(extra[0])}.", param=extra[0][:QUOTED_PARAM])


def parse_expires_in(value) -> int:
    if value is None:
        return DEFAULT_ROTATION_OVERLAP
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ROTATION_OVERLAP:
        raise ApiError(
            "invalid_request",
            f"expires_in must be a whole number of seconds from 0 to {MAX_ROTATION_OVERLAP}.",
            param="expires_in",
        )
    return value
