"""The one way a page or an email writes a moment: "26 Nov 2026, 16:21 UTC".

Day first, the month as a word and the time zone named, so no reader takes 03/04 for the
wrong month; UTC because the service stores no time zone for its users (docs/spec.md 2.1).
The API keys page writes its dates in the browser with the same format
(templates/apikeys/api_keys.html ``when``); the browser test compares the two.
"""

from datetime import UTC, datetime

from django import template
from django.utils import dateformat

register = template.Library()

FORMAT = "j M Y, H:i"


@register.filter
def when(value: datetime | None, empty: str = "") -> str:
    """``{{ key.created|when }}``; ``{{ key.last_used|when:"never" }}`` says what a missing moment means."""
    if value is None:
        return empty
    return f"{dateformat.format(value.astimezone(UTC), FORMAT)} UTC"


@register.filter
def day(value) -> str:
    """A date without a time, alike: "1 Oct 2026" (a version's sunset)."""
    return "" if value is None else dateformat.format(value, "j M Y")
