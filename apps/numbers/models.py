"""Virtual numbers the account rents, and the verified numbers it may show as caller ID.

Rows are written by the telephony core (outside this service), the admin and
``manage.py seed_demo``. The one switch an account holder sets here is a
number's ``messages_opt_in`` (docs/spec.md 5.13), from the sharing screen.
"""

from django.db import models
from django.utils import timezone

from apps.core.ids import id_default
from apps.core.models import AccountRow

NUMBER_ID_PREFIX = "num_"
CALLER_ID_PREFIX = "cid_"
new_number_id = id_default(NUMBER_ID_PREFIX, "new_number_id")
new_caller_id_id = id_default(CALLER_ID_PREFIX, "new_caller_id_id")


class NumberType(models.TextChoices):
    LOCAL = "local", "Local"
    MOBILE = "mobile", "Mobile"
    NATIONAL = "national", "National"
    TOLL_FREE = "toll_free", "Toll-free"


class NumberStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    CANCELED = "canceled", "Canceled"


class Number(AccountRow):
    id = models.CharField(primary_key=True, max_length=32, default=new_number_id, editable=False)
    number = models.CharField(max_length=16, help_text="E.164, with +.")
    # ISO 3166 alpha-2, derived from the number (apps.numbers.services); blank for a number of no country.
    country = models.CharField(max_length=2, blank=True, default="", editable=False)
    type = models.CharField(max_length=9, choices=NumberType.choices)
    voice = models.BooleanField(default=True)
    sms = models.BooleanField(default=False)
    # The per-number sharing switch (docs/spec.md 5.13): off until the holder turns it on.
    messages_opt_in = models.BooleanField(default=False)
    status = models.CharField(max_length=8, choices=NumberStatus.choices, default=NumberStatus.ACTIVE)
    label = models.CharField(max_length=100, blank=True, default="")
    renews_at = models.DateTimeField(null=True, blank=True, help_text="Empty once canceled.")

    class Meta:
        indexes = [models.Index(fields=["user", "livemode", "-created", "-id"], name="numbers_number_page_idx")]

    def __str__(self):
        return f"{self.number} ({self.id})"


class CallerId(AccountRow):
    id = models.CharField(primary_key=True, max_length=32, default=new_caller_id_id, editable=False)
    number = models.CharField(max_length=16, help_text="E.164, with +.")
    country = models.CharField(max_length=2, blank=True, default="", editable=False)
    verified_at = models.DateTimeField(default=timezone.now)
    is_default = models.BooleanField("default", default=False)

    class Meta:
        verbose_name = "caller ID"
        indexes = [models.Index(fields=["user", "livemode", "-created", "-id"], name="numbers_callerid_page_idx")]
        constraints = [
            # Calls show one number unless told otherwise: at most one default per account and mode.
            models.UniqueConstraint(
                fields=["user", "livemode"],
                condition=models.Q(is_default=True),
                name="numbers_one_default_caller_id",
                violation_error_message="This account already has a default caller ID in this mode.",
            )
        ]

    def __str__(self):
        return f"{self.number} ({self.id})"
