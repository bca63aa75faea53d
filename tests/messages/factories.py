"""Messages for tests, delivered through the one arrival (``message_receive``) at a chosen moment."""

from datetime import timedelta

from django.utils import timezone

from apps.accounts.security import sharing_update
from apps.messages.services import message_receive
from apps.numbers.services import number_set_messages_opt_in
from tests.numbers.factories import make_number


def make_sms_number(user, number="+442071838750", *, livemode=True, shared=True, **fields):
    """A number that receives SMS; ``shared`` turns on both switches (the account's and the number's)."""
    row = make_number(user, number, livemode=livemode, sms=True, **fields)
    if shared:
        share(user, row)
    return row


def share(user, number, on=True):
    sharing_update(user=user, call_summaries=False, message_reading=True)
    number_set_messages_opt_in(user=user, number_id=number.id, value=on)


def make_message(number, body="Hello", *, sender="+447700900123", ago=0):
    """A message ``ago`` seconds old on ``number``."""
    return message_receive(number=number, sender=sender, body=body, at=timezone.now() - timedelta(seconds=ago))
