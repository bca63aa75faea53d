"""Writes of messages: one arrives (the one place), and old ones are purged.

``message_receive`` is where every inbound message enters the inbox, whatever brought
it (a carrier's callback, the simulator's test helper, ``manage.py sim_sms``, seed
data): the code a body carries is found here, once.
"""

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.core.ids import is_id
from apps.core.phones import canonical_or_none
from apps.core.purge import delete_in_batches
from apps.numbers.selectors import sms_numbers_in_service
from apps.telephony.public import carrier_for
from apps.telephony.public import events as ev

from .codes import detect_code
from .models import MAX_BODY, Message
from .webhooks import publish_received

logger = logging.getLogger(__name__)

PURGE_BATCH = 1000
# GSM 03.38's basic set and its extension table (an extension character costs two septets).
_GSM7 = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§"
    "¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
_GSM7_EXTENDED = frozenset("^{}\\[~]|€\f")


def num_segments(body: str) -> int:
    """How many SMS segments carry ``body``: 160 GSM-7 septets in one (153 each once split), else 70
    UCS-2 characters (67 each; a character outside the BMP takes two)."""
    if all(ch in _GSM7 or ch in _GSM7_EXTENDED for ch in body):
        units, single, part = sum(2 if ch in _GSM7_EXTENDED else 1 for ch in body), 160, 153
    else:
        units, single, part = sum(2 if ord(ch) > 0xFFFF else 1 for ch in body), 70, 67
    return 1 if units <= single else -(-units // part)


def message_build(*, number, sender: str, body: str, at: datetime | None = None) -> Message:
    """The message ``number`` (a numbers.Number row) received from ``sender``, unsaved, its code found.

    The message is the number's account's and mode's. Raises ValueError for a body
    over ``MAX_BODY`` characters or an empty one (a carrier never delivers either).
    """
    if not body or len(body) > MAX_BODY:
        raise ValueError(f"a message body is 1 to {MAX_BODY} characters")
    found = detect_code(body)
    return Message(
        user_id=number.user_id,
        livemode=number.livemode,
        created=at or timezone.now(),
        number_id=number.pk,
        to_number=number.number,
        # A number as its canonical E.164, so a filter by sender finds it however it was written;
        # an alphanumeric sender ("HSBC") as sent.
        from_sender=canonical_or_none(sender) or sender,
        body=body,
        num_segments=num_segments(body),
        code=found.code if found else "",
        code_domain=(found.domain or "") if found else "",
    )


def message_receive(*, number, sender: str, body: str, at: datetime | None = None) -> Message:
    """Store a message that arrived: every inbound message enters the inbox here.

    Whatever else must happen when a message arrives belongs in this transaction: the
    ``message.received`` event of a number whose messages are shared (apps/messages/webhooks.py).
    """
    message = message_build(number=number, sender=sender, body=body, at=at)
    with transaction.atomic():
        message.save(force_insert=True)
        publish_received(message)
    return message


def message_arrive(*, number, sender: str, body: str, at: datetime | None = None) -> Message | None:
    """An SMS sent to ``number`` through the carrier boundary, as the simulator's test helper and
    ``manage.py sim_sms`` send one: the carrier of the number's mode reads it (the simulator gives
    its code sender's texts their fixed body) and its event's receiver stores it."""
    inbound = carrier_for(livemode=number.livemode).parse_inbound_message(
        {"number": number.id, "from": sender, "body": body, "received_at": at, "livemode": number.livemode}
    )
    event = ev.CarrierEvent(
        ev.MESSAGE,
        ev.MESSAGE_RECEIVED,
        inbound.to,
        inbound.received_at,
        inbound.livemode,
        {"from": inbound.sender, "body": inbound.body},
    )
    return ev.deliver(event)


def message_apply_carrier_event(event: ev.CarrierEvent) -> Message | None:
    """The receiver of the carrier's message events: the number it names (our id, or its E.164 among
    the active SMS numbers of that mode) gets the message; an unknown number's is logged and dropped."""
    named = {"pk": event.subject} if is_id(event.subject, "num_") else {"number": event.subject}
    number = sms_numbers_in_service(livemode=event.livemode).filter(**named).first()
    if number is None:
        logger.warning("inbound message for a number not in service dropped (%s)", "live" if event.livemode else "test")
        return None
    return message_receive(
        number=number, sender=event.detail["from"], body=event.detail["body"], at=event.at or timezone.now()
    )


def messages_purge(*, now: datetime | None = None, days: int | None = None, batch_size: int = PURGE_BATCH) -> int:
    """Delete messages older than ``MESSAGE_RETENTION_DAYS`` (a message exactly at the boundary is kept),
    in small batches so that a backlog never holds a long lock; returns how many were deleted."""
    days = settings.MESSAGE_RETENTION_DAYS if days is None else days
    cutoff = (now or timezone.now()) - timedelta(days=days)
    return delete_in_batches(Message.objects.filter(created__lt=cutoff), batch_size=batch_size)


def messages_delete_all(*, user, livemode: bool) -> None:
    """Every message of the account in that mode (seed data replaces them)."""
    Message.objects.filter(user=user, livemode=livemode).delete()
