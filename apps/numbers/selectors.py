"""Reads of numbers and caller IDs: the one place that filters them by the caller's account and mode.

``principal.user`` may be a partial User (a cached credential's): only its primary key is read.
"""

from django.db.models import QuerySet

from apps.core.ids import is_id

from .models import CALLER_ID_PREFIX, NUMBER_ID_PREFIX, CallerId, Number, NumberStatus


def is_number_id(value) -> bool:
    # Checked before any query: a malformed id (a stray byte, another prefix) never reaches the database.
    return is_id(value, NUMBER_ID_PREFIX)


def is_caller_id_id(value) -> bool:
    return is_id(value, CALLER_ID_PREFIX)


def number_list(*, principal) -> QuerySet[Number]:
    """The caller's numbers of every status, in the caller's mode; the list view pages them newest first."""
    return Number.objects.filter(user_id=principal.user.pk, livemode=principal.livemode)


def number_get(*, principal, number_id: str) -> Number | None:
    """One of the caller's numbers; None for a malformed id (no query sent), another account's or mode's."""
    if not is_number_id(number_id):
        return None
    return number_list(principal=principal).filter(pk=number_id).first()


def caller_id_list(*, principal) -> QuerySet[CallerId]:
    """The caller's verified caller IDs in the caller's mode; the list view pages them newest first."""
    return caller_ids_in_mode(user_id=principal.user.pk, livemode=principal.livemode)


def caller_ids_in_mode(*, user_id, livemode: bool) -> QuerySet[CallerId]:
    """An account's caller IDs of one mode, by its id: for a statement compiled once (apps/core/sql.py),
    which has the principal's values, not the principal."""
    return CallerId.objects.filter(user_id=user_id, livemode=livemode)


def number_list_for_sharing(*, user, livemode: bool | None = None) -> list[Number]:
    """The numbers whose message-reading switch the sharing screen shows: the account's active
    numbers of both modes (test-mode keys read test numbers' messages), live ones first, each oldest
    first; of one mode when ``livemode`` is given."""
    numbers = Number.objects.filter(user_id=user.pk, status=NumberStatus.ACTIVE)
    if livemode is not None:
        numbers = numbers.filter(livemode=livemode)
    return list(numbers.order_by("-livemode", "created", "id"))


def numbers_in_mode(*, user_id, livemode: bool) -> QuerySet[Number]:
    """The account's numbers of every status in one mode, for reads that hold a user id rather than a
    principal (another app's statement may annotate or filter it further)."""
    return Number.objects.filter(user_id=user_id, livemode=livemode)


def sms_numbers_in_service(*, livemode: bool) -> QuerySet[Number]:
    """Every account's active SMS numbers of one mode, oldest first: where an inbound message may land."""
    return Number.objects.filter(livemode=livemode, sms=True, status=NumberStatus.ACTIVE).order_by("created", "id")


def sms_number_first(*, user, livemode: bool) -> Number | None:
    """The account's oldest active SMS number in ``livemode``; None when it has none."""
    return sms_numbers_in_service(livemode=livemode).filter(user_id=user.pk).first()


def caller_id_default(*, user, livemode: bool) -> CallerId | None:
    """The account's default caller ID in ``livemode`` (the oldest when none is marked); None when it has none."""
    return CallerId.objects.filter(user_id=user.pk, livemode=livemode).order_by("-is_default", "created").first()


def voice_number_values(*, user, livemode: bool) -> list[str]:
    """The E.164 forms of the account's voice numbers in ``livemode``, sorted."""
    return sorted(
        numbers_in_mode(user_id=user.pk, livemode=livemode).filter(voice=True).values_list("number", flat=True)
    )
