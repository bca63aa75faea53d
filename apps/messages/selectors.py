"""Reads of messages: the one place that filters them by the caller's account, mode and sharing switches.

A number's messages are readable while both switches of the sharing screen allow it:
the account's "read messages" consent and the number's own ``messages_opt_in``. Both
are read in the statement that reads the messages, so a switch turned off between a
check and a page hides the page too (nothing is cached).

Numbers come from the numbers app's selectors and the account's switch from the accounts
app's (a named exception of .importlinter's ``resources-stay-in-their-lane``), each as a
query this module's statements extend. ``principal.user`` may be a partial User (a cached
credential's): only its primary key is read.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from django.db.models import OuterRef, Q, QuerySet, Subquery

from apps.accounts.selectors import message_reading_consented
from apps.api_v1.public import Listing
from apps.core.phones import canonical_or_none
from apps.numbers.selectors import numbers_in_mode

from .models import MESSAGE_PREFIX, Message

MESSAGE_ID_PATTERN = r"^msg_[0-9A-Za-z]{1,28}$"
NUMBER_ID_PATTERN = r"^num_[0-9A-Za-z]{1,28}$"
_MESSAGE_ID = re.compile(MESSAGE_ID_PATTERN.strip("^$"))
_NUMBER_ID = re.compile(NUMBER_ID_PATTERN.strip("^$"))
# The label of the switches on the sharing screen (templates/settings/sharing.html), for messages naming them.
SHARING_SETTING = "Let connected apps read messages on the numbers I opt in"


def is_message_id(value) -> bool:
    return isinstance(value, str) and value.startswith(MESSAGE_PREFIX) and _MESSAGE_ID.fullmatch(value) is not None


def numbers_of(principal) -> QuerySet:
    """The caller's numbers in the caller's mode, each with ``shared``: whether its messages may be read."""
    return numbers_in_mode(user_id=principal.user.pk, livemode=principal.livemode).annotate(
        account_consents=message_reading_consented(OuterRef("user_id"))
    )


def is_shared(number) -> bool:
    """A number of ``numbers_of``: both switches on."""
    return bool(number.messages_opt_in and number.account_consents)


def number_shares_messages(*, user_id, livemode: bool, number_id) -> bool:
    """Whether the account's number ``number_id`` shares its messages now: ``is_shared``'s rule, read
    afresh in one statement (for whoever holds only ids, such as a webhook event's gate)."""
    if not isinstance(number_id, str) or _NUMBER_ID.fullmatch(number_id) is None:
        return False
    return (
        numbers_in_mode(user_id=user_id, livemode=livemode)
        .filter(pk=number_id, messages_opt_in=True)
        .filter(message_reading_consented(OuterRef("user_id")))
        .exists()
    )


def number_find(*, principal, value: str, cursor: str | None = None, since: datetime | None = None):
    """The caller's number named by its ``num_`` id or its E.164 form; None when it is not theirs
    (another account's, the other mode's, or none), or ``value`` names no number at all.

    With ``cursor`` (a well-formed message id), the same statement also reads where that message
    stands among the messages the caller can read now (``message_list``'s cursors, ``since`` its
    window): ``cursor_position(number)`` gives it, so a filtered page with a cursor costs no
    statement of its own for the cursor.
    """
    if not isinstance(value, str):
        return None
    if value.startswith("num_"):
        if _NUMBER_ID.fullmatch(value) is None:
            return None
        found = numbers_of(principal).filter(pk=value)
    else:
        stored = canonical_or_none(value)  # numbers are stored canonical: +44 07... finds +44 7...
        if stored is None:
            return None
        found = numbers_of(principal).filter(number=stored).order_by("created", "id")
    if cursor is not None:
        named = _readable(principal, since).filter(pk=cursor)
        found = found.annotate(
            cursor_created=Subquery(named.values("created")[:1]), cursor_pk=Subquery(named.values("id")[:1])
        )
    return found.first()


def cursor_position(number) -> dict | None:
    """The position ``number_find`` read with its ``cursor``: None when the caller cannot read that message now."""
    if number.cursor_pk is None:
        return None
    return {"created": number.cursor_created, "id": number.cursor_pk}


def numbers_shared(*, principal) -> list:
    """The caller's numbers whose messages may be read now, oldest first."""
    return [n for n in numbers_of(principal).filter(messages_opt_in=True).order_by("created", "id") if is_shared(n)]


def _shared() -> Q:
    # Both switches, read by the statement that reads the messages.
    return Q(number__messages_opt_in=True) & Q(message_reading_consented(OuterRef("user_id")))


def _listed(
    livemode: bool,
    by_number: bool,
    by_sender: bool,
    by_gte: bool,
    by_lt: bool,
    by_since: bool,
    *,
    user_id,
    number_id: str | None = None,
    sender: str | None = None,
    gte: datetime | None = None,
    lt: datetime | None = None,
    since: datetime | None = None,
) -> QuerySet[Message]:
    queryset = Message.objects.filter(_shared(), user_id=user_id, livemode=livemode)
    if by_number:
        queryset = queryset.filter(number_id=number_id)
    if by_sender:
        queryset = queryset.filter(from_sender=sender)
    if by_gte:
        queryset = queryset.filter(created__gte=gte)
    if by_lt:
        queryset = queryset.filter(created__lt=lt)
    if by_since:
        queryset = queryset.filter(created__gte=since)
    return queryset


def _readable(principal, since: datetime | None) -> QuerySet[Message]:
    """Every message the caller can read now: the rows a cursor may name, whichever filters a page has."""
    window = {"since": since} if since is not None else {}
    return _listed(
        principal.livemode, False, False, False, False, since is not None, user_id=principal.user.pk, **window
    )


@dataclass(frozen=True)
class _PositionsKnown:
    """A listing whose cursor positions were read already (``number_find``'s ``cursor``): the page's own
    statement is all that is left to send."""

    listing: Listing
    positions: Mapping[str, dict | None]

    def rows(self, travel: str, limit: int, position: dict | None) -> list:
        return self.listing.rows(travel, limit, position)

    def position(self, object_id: str) -> dict | None:
        if object_id in self.positions:
            return self.positions[object_id]
        return self.listing.position(object_id)


def message_list(
    *,
    principal,
    number_id: str | None = None,
    sender: str | None = None,
    gte: datetime | None = None,
    lt: datetime | None = None,
    since: datetime | None = None,
    positions: Mapping[str, dict | None] | None = None,
):
    """The caller's readable messages (numbers shared, and newer than ``since`` when given), filtered;
    the list pages them newest first (rows for ``apps.api_v1.public.page``: a ``Listing``, or one whose
    cursor positions are known).

    A cursor must be a message the caller can read now, whichever filters this page has: a
    message of a number switched off, or older than the caller's window, marks no position.
    ``positions``: cursors whose position (or None) was read already, by the same rule and
    ``since``, so that the page does not read it again.
    """
    account = {"user_id": principal.user.pk}
    window = {"since": since} if since is not None else {}
    filters = {
        name: value
        for name, value in (("number_id", number_id), ("sender", sender), ("gte", gte), ("lt", lt))
        if value is not None
    }
    shape = (principal.livemode, number_id is not None, sender is not None, gte is not None, lt is not None)
    readable = Listing(
        _listed, (principal.livemode, False, False, False, False, since is not None), {**account, **window}
    )
    listing = Listing(_listed, (*shape, since is not None), {**account, **filters, **window}, cursors=readable)
    return _PositionsKnown(listing, positions) if positions else listing


def message_get(*, principal, message_id: str) -> Message | None:
    """The caller's message with its number and the account's consent (``number.account_consents``), in one
    statement; None for a malformed id (no query), another account's or mode's, or none."""
    if not is_message_id(message_id):
        return None
    return (
        Message.objects.filter(user_id=principal.user.pk, livemode=principal.livemode, pk=message_id)
        .select_related("number")
        .annotate(account_consents=message_reading_consented(OuterRef("user_id")))
        .first()
    )


def message_is_shared(message: Message) -> bool:
    """A message of ``message_get``: its number's switch and the account's consent both on."""
    return bool(message.number.messages_opt_in and message.account_consents)
