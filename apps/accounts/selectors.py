"""Reads of the account that other apps may make (the resource apps import this module only)."""

from django.db.models import Exists

from .models import SharingSettings


def sharing_get(*, user) -> SharingSettings:
    """The account's sharing switches (docs/spec.md 5.13); an unsaved all-off record when never set.

    ``user`` may be a partial User (a cached credential's): only its primary key is read.
    """
    return SharingSettings.objects.filter(user_id=user.pk).first() or SharingSettings(user_id=user.pk)


def message_reading_consented(user_ref) -> Exists:
    """Whether the account's message-reading switch is on, as a subquery of the statement asking
    (``user_ref``: a user id or an ``OuterRef`` to one), so a switch turned off hides that very page."""
    return Exists(SharingSettings.objects.filter(user_id=user_ref, message_reading=True))
