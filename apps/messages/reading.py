"""The rules of a message read, shared by GET /v1/messages and svc_read_messages.

In docs/design.md's order: a number not the caller's is not found; a number whose sharing
switch is off is ``number_not_opted_in``; without ``messages:history`` only the last
60 minutes are readable. Each number read spends its own budget (10 a minute, whoever
reads it), and a read through an app or key that returned messages is an audit event.
"""

from datetime import datetime, timedelta

from django.conf import settings

from apps.api_v1.public import RESOURCE_PATH, has_scope
from apps.audit.models import EventType
from apps.audit.services import audit_record_all, audit_sensitive_event
from apps.core.errors import ApiError
from apps.core.phones import readable
from apps.credentials.challenges import www_authenticate
from apps.ratelimit.public import ratelimit_numbers

from . import selectors

HISTORY_SCOPE = "messages:history"
WINDOW = timedelta(minutes=60)
NUMBER_BUDGET = "messages.number"


def sharing_url() -> str:
    return f"{settings.APP_URL}/settings/sharing"


def not_opted_in(number) -> ApiError:
    return ApiError(
        "number_not_opted_in",
        f"Message reading is off for {number.number}. The account holder can turn on "
        f'"{selectors.SHARING_SETTING}" and tick this number at {sharing_url()}.',
        param="number",
    )


def history_needed(what: str) -> ApiError:
    return ApiError(
        "insufficient_scope",
        f"{what} needs the {HISTORY_SCOPE} scope: without it only the last 60 minutes of messages are readable.",
        headers={"WWW-Authenticate": www_authenticate(RESOURCE_PATH, error="insufficient_scope", scope=HISTORY_SCOPE)},
    )


def window_start(principal, now: datetime) -> datetime | None:
    """The oldest moment the caller may read, or None with messages:history (no bound but retention)."""
    return None if has_scope(principal, HISTORY_SCOPE) else now - WINDOW


def readable_number(
    *, principal, value: str, param: str = "number", cursor: str | None = None, since: datetime | None = None
):
    """The caller's number named by ``value`` (num_ id or E.164) whose messages may be read now; with
    ``cursor``, read with that message's position (``selectors.number_find``)."""
    number = selectors.number_find(principal=principal, value=value, cursor=cursor, since=since)
    if number is None:
        raise ApiError("not_found", "No such number in this account and mode.", param=param)
    if not selectors.is_shared(number):
        raise not_opted_in(number)
    return number


def spend_number_budgets(*, request, number_ids) -> None:
    """One unit of each number's budget (429 ``rate_limited`` once one is spent)."""
    if number_ids:
        ratelimit_numbers(request=request, name=NUMBER_BUDGET, numbers=sorted(number_ids))


def record_read(*, principal, messages) -> None:
    """An audit event for each number whose messages the caller just read ("read 2 messages of +44 ..."),
    written in one statement however many numbers the page holds."""
    by_number: dict[str, int] = {}
    for message in messages:
        by_number[message.to_number] = by_number.get(message.to_number, 0) + 1
    events = []
    for number, count in by_number.items():
        said = "1 message" if count == 1 else f"{count} messages"
        # Numbers and counts only: a body or a code never reaches the audit log.
        events.append(
            audit_sensitive_event(
                principal=principal,
                event_type=EventType.MESSAGES_READ,
                summary=f"read {said} of {readable(number)}",
                data={"number": number, "count": count},
            )
        )
    audit_record_all(events)
