"""SMS received on the account's numbers: a receive-only inbox (docs/design.md, Phase 3).

Rows are written by the carrier boundary when a message arrives (and by the
simulator's ways in); this service never sends one. The one-time code a body
carries is found once, when the message is stored, so a read never parses.
Messages are kept ``MESSAGE_RETENTION_DAYS`` (``manage.py purge_messages``).
"""

from django.db import models

from apps.core.ids import id_default
from apps.core.models import AccountRow

MESSAGE_PREFIX = "msg_"
# An SMS body is at most 10 concatenated segments here: 1,600 GSM characters.
MAX_BODY = 1600
# E.164 (at most 15 digits and +) or an alphanumeric sender id (at most 11 characters).
MAX_SENDER = 16


new_message_id = id_default(MESSAGE_PREFIX, "new_message_id")


class Message(AccountRow):
    id = models.CharField(primary_key=True, max_length=32, default=new_message_id, editable=False)
    # The number that received it: its sharing switch gates every read. A reference by
    # model name, so this app imports nothing of the numbers app.
    number = models.ForeignKey("numbers.Number", on_delete=models.CASCADE, related_name="+", db_index=False)
    to_number = models.CharField("to", max_length=16, help_text="E.164 with +: the number that received it.")
    from_sender = models.CharField("from", max_length=MAX_SENDER, help_text="E.164 with +, or an alphanumeric sender.")
    body = models.TextField(max_length=MAX_BODY)
    num_segments = models.PositiveSmallIntegerField(default=1)
    # Found when stored (apps.messages.codes); empty when the body carries none.
    code = models.CharField(max_length=16, blank=True, default="")
    code_domain = models.CharField(max_length=253, blank=True, default="")

    class Meta:
        indexes = [
            models.Index(fields=["user", "livemode", "-created", "-id"], name="inbox_message_page_idx"),
            models.Index(fields=["number", "-created", "-id"], name="inbox_message_number_idx"),
            # Retention deletes by age across accounts.
            models.Index(fields=["created"], name="inbox_message_created_idx"),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(num_segments__gte=1), name="inbox_message_segments_positive"),
        ]

    def __str__(self):
        return self.id
