"""The abstract model an account's resource rows start from (no table of its own)."""

from django.conf import settings
from django.db import models
from django.utils import timezone


class AccountRow(models.Model):
    """A row of one account in one mode: no read crosses accounts or modes.

    ``user`` is not indexed alone: every read names the account and the mode, so each
    model's own indexes lead with ``(user, livemode)``, and they serve a deleted account's
    cascade too. Each model declares its ``id`` (its prefix and default) itself.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    livemode = models.BooleanField(default=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        abstract = True
