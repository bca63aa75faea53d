"""Sentences about calls for reading aloud (the MCP tools' ``spoken`` lines).

The account's time zone is not known yet (``time_zone`` is null, docs/spec.md
2.1), so every time is spoken in UTC and says so: an assistant must not
present 14:02 UTC as the user's 14:02.
"""

from datetime import UTC, datetime
from functools import lru_cache

from apps.core.money import display
from apps.core.phones import readable as number
from apps.core.text import one_line

from .models import Status

TIME_ZONE_NOTE = "times in UTC, as your time zone is not known"
# strftime's %B in the C locale, which the service never changes; indexing costs a third of strftime.
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

OUTCOMES = {
    Status.QUEUED: "queued",
    Status.RINGING_YOU: "ringing your phone",
    Status.RINGING: "ringing",
    Status.BUSY: "busy",
    Status.NO_ANSWER: "not answered",
    Status.FAILED: "failed",
    Status.CANCELED: "canceled",
}


def party(item: dict) -> str:
    """The other side of the call: the contact's name when known, else the number."""
    other = item["to"] if item["direction"] == "outbound" else item["from"]
    name = item.get("contact_name")
    return one_line(name) if name else number(other)


def when(unix: int, now: datetime) -> str:
    """ "3 March at 14:02 UTC" (the year too when it is not this year's)."""
    moment = datetime.fromtimestamp(unix, tz=UTC)
    day = f"{moment.day} {MONTHS[moment.month - 1]}" + (f" {moment.year}" if moment.year != now.year else "")
    return f"{day} at {moment.hour:02d}:{moment.minute:02d} UTC"


def length(seconds: int) -> str:
    """ "2 min 5 s", "45 s", "3 min"."""
    minutes, rest = divmod(seconds, 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"


# typed: 9 and Decimal("9") are separate entries, each display()'s own answer.
# Bounded, as core.phones.readable is: a page of calls repeats the same few amounts, and babel
# costs 15-25 us a call where a hit costs under one.
amount_display = lru_cache(maxsize=1024, typed=True)(display)


def cost(item: dict) -> str:
    return amount_display(item["amount"], item["currency"]) if item["amount"] is not None else "no charge"


def outcome(item: dict) -> str:
    """What happened, with talk time and cost where there were any."""
    status = item["status"]
    if status == Status.IN_PROGRESS:
        return f"in progress, {length(item['duration'])} and {cost(item)} so far"
    if status == Status.COMPLETED:
        return f"{length(item['duration'])}, {cost(item)}"
    return OUTCOMES.get(status, status)


def list_line(item: dict, now: datetime) -> str:
    direction = "to" if item["direction"] == "outbound" else "from"
    return f"{item['direction']} {direction} {party(item)} on {when(item['created'], now)}, {outcome(item)}"


def calls_sentence(items: list[dict], *, has_more: bool, next_page: bool, direction: str | None, now: datetime) -> str:
    kind = f"{direction} calls" if direction else "calls"
    if not items:
        return f"There are no more {kind}." if next_page else f"You have no {kind}."
    count = f"{len(items)} {kind}" if len(items) != 1 else f"1 {kind[:-1]}"
    head = f"The next {count}" if next_page else f"Your {count}, newest first"
    sentence = f"{head} ({TIME_ZONE_NOTE}): " + "; ".join(list_line(i, now) for i in items) + "."
    if has_more:
        sentence += " There are more; ask for the next page."
    return sentence


def call_sentence(item: dict, now: datetime) -> str:
    """One call as a sentence: live status and cost so far, or how it ended."""
    other = party(item)
    if item.get("contact_name"):
        other += f" ({number(item['to'] if item['direction'] == 'outbound' else item['from'])})"
    subject = f"Your call to {other}" if item["direction"] == "outbound" else f"The call from {other}"
    status = item["status"]
    if status == Status.IN_PROGRESS:
        return f"{subject} is in progress: {length(item['duration'])} so far, {cost(item)} so far."
    if status == Status.RINGING_YOU:
        return f"{subject} is ringing your phone first; answer it and press 1 to connect."
    if status in (Status.QUEUED, Status.RINGING):
        return f"{subject} is {OUTCOMES[status]}."
    at = when(item["created"], now)
    if status == Status.COMPLETED:
        return f"{subject} on {at} lasted {length(item['duration'])} and cost {cost(item)}."
    return f"{subject} on {at} was {OUTCOMES.get(status, status)}; it was not charged."
