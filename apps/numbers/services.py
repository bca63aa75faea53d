"""Writes of numbers and caller IDs.

Numbers and caller IDs are written by the telephony core, the admin and seed data;
the account holder sets only a number's ``messages_opt_in``, from the sharing
screen, and that change is audited like the account's other sharing switches.
"""

from django.db import transaction

from apps.audit.models import EventType
from apps.audit.services import audit_record
from apps.core.phones import country_of, e164, parse_e164

from .models import CallerId, Number, NumberStatus
from .selectors import is_number_id


class NumberNotFound(LookupError):
    """No such number among the user's."""


def number_fill_country(*, number: Number) -> Number:
    """Check the number (E.164), store its canonical form and derive its country; the caller saves."""
    parsed = parse_e164(number.number)
    number.number, number.country = e164(parsed), country_of(parsed)
    return number


def caller_id_fill_country(*, caller_id: CallerId) -> CallerId:
    parsed = parse_e164(caller_id.number)
    caller_id.number, caller_id.country = e164(parsed), country_of(parsed)
    return caller_id


def number_create(*, user, livemode: bool, number: str, type: str, **fields) -> Number:
    """A rented number (seed data, the admin); country from the number, switch off unless given."""
    row = number_fill_country(number=Number(user=user, livemode=livemode, number=number, type=type, **fields))
    if row.status == NumberStatus.CANCELED:
        row.renews_at = None
    row.full_clean(exclude=["user"])
    row.save(force_insert=True)
    return row


def caller_id_create(*, user, livemode: bool, number: str, default: bool = False, **fields) -> CallerId:
    """A verified caller ID; ``default=True`` makes it the one default of the account and mode."""
    with transaction.atomic():
        row = caller_id_fill_country(caller_id=CallerId(user=user, livemode=livemode, number=number, **fields))
        row.full_clean(exclude=["user"])
        row.save(force_insert=True)
        if default:
            caller_id_make_default(caller_id=row)
    return row


def caller_id_make_default(*, caller_id: CallerId) -> CallerId:
    """Make ``caller_id`` the default, un-defaulting the previous one in the same transaction
    (numbers_one_default_caller_id refuses two)."""
    with transaction.atomic():
        CallerId.objects.filter(user_id=caller_id.user_id, livemode=caller_id.livemode, is_default=True).exclude(
            pk=caller_id.pk
        ).update(is_default=False)
        CallerId.objects.filter(pk=caller_id.pk).update(is_default=True)
        caller_id.is_default = True
    return caller_id


def number_set_messages_opt_in(*, user, number_id: str, value: bool) -> Number:
    """Turn a number's message-reading switch on or off (docs/spec.md 5.13).

    One audit row (account.sharing_updated, naming the number) when the value
    changes, none when it does not. Raises NumberNotFound for an id that is not
    one of the user's numbers.
    """
    if not isinstance(value, bool):
        raise TypeError("messages_opt_in is a boolean")
    if not is_number_id(number_id):
        raise NumberNotFound(number_id)
    with transaction.atomic():
        row = Number.objects.select_for_update().filter(user_id=user.pk, pk=number_id).first()
        if row is None:
            raise NumberNotFound(number_id)
        if row.messages_opt_in != value:
            row.messages_opt_in = value
            row.save(update_fields=["messages_opt_in"])
            audit_record(
                event_type=EventType.SHARING_UPDATED,
                user=user,
                data={"number_id": row.id, "number": row.number, "messages_opt_in": value},
            )
    return row


def numbers_delete_all(*, user, livemode: bool) -> None:
    """Every number and caller ID of the account in that mode (seed data replaces them)."""
    Number.objects.filter(user=user, livemode=livemode).delete()
    CallerId.objects.filter(user=user, livemode=livemode).delete()
