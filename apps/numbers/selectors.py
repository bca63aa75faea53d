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
    return CallerId.objects.filter(user_id=principal.user.pk, livemode=principal.livemode)


def number_list_for_sharing(*, user, livemode: bool | None = None) -> list[Number]:
    """The numbers whose message-reading switch the sharing screen shows: the account's active
    numbers of both modes (test-mode keys read test numbers' messages), live ones first, each oldest
    first; of one mode when ``livemode`` is given."""
    numbers = Number.objects.filter(user_id=user.pk, status=NumberStatus.ACTIVE)
    if livemode is not None:
        numbers = numbers.filter(livemode=livemode)
    return list(numbers.order_by("-livemode", "created", "id"))
