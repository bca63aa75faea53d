"""The account's address book: contacts, their phone numbers, and the terms a search looks up.

Other apps read a contact's name through ``selectors.contact_name_of`` (a subquery of their
own statement).
"""

from django.conf import settings
from django.db import models

from apps.core.ids import id_default
from apps.core.models import AccountRow

CONTACT_ID_PREFIX = "ct_"
MAX_PHONE_NUMBERS = 10  # keeps a contact, and a page of them, a few KB


new_contact_id = id_default(CONTACT_ID_PREFIX, "new_contact_id")


class Contact(AccountRow):
    id = models.CharField(primary_key=True, max_length=32, default=new_contact_id, editable=False)
    name = models.CharField(max_length=200)
    # The name folded (apps.contacts.search.sort_key): the list's order and its cursor's key.
    sort_name = models.CharField(max_length=200, editable=False, default="")

    class Meta:
        indexes = [models.Index(fields=["user", "livemode", "sort_name", "id"], name="contacts_user_mode_name_idx")]

    def __str__(self):
        return f"{self.name} ({self.id})"


class PhoneLabel(models.TextChoices):
    MOBILE = "mobile", "Mobile"
    HOME = "home", "Home"
    WORK = "work", "Work"
    OTHER = "other", "Other"


class ContactPhoneNumber(models.Model):
    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="phone_numbers")
    position = models.PositiveSmallIntegerField(default=0)
    number = models.CharField(max_length=16, help_text="E.164, with +.")
    label = models.CharField(max_length=8, choices=PhoneLabel.choices, default=PhoneLabel.MOBILE)
    # ISO 3166 alpha-2 from phonenumbers; blank when the number belongs to no country (+800, +882...).
    country = models.CharField(max_length=2, blank=True, default="", editable=False)

    class Meta:
        ordering = ("position", "id")

    def __str__(self):
        return f"{self.number} ({self.label})"


class ContactSearchTerm(models.Model):
    """One searchable term of a contact: a folded name word, or a suffix of a number's digits.

    Derived from the contact by the services (apps/contacts/services.py), never
    edited. Owner, mode and the contact's sort key are copied here so that a
    search is one range scan of contacts_term_prefix_idx that already yields the
    matches in name order: only the page's contacts are then read
    (docs/decisions/contacts.md).
    """

    NAME = "n"
    DIGITS = "d"

    # Not indexed alone: contacts_term_contact_idx leads with it (cascades, the other words of a query).
    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="+", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    livemode = models.BooleanField()
    kind = models.CharField(max_length=1, choices=[(NAME, "name word"), (DIGITS, "number digits")])
    term = models.CharField(max_length=64)
    sort_name = models.CharField(max_length=200)

    class Meta:
        indexes = [
            # varchar_pattern_ops: PostgreSQL serves ``term LIKE 'jo%'`` from the index whatever the
            # database collation; the included columns let it order and page the matches without
            # reading the table. Other databases ignore both (SQLite scans, as it may).
            models.Index(
                fields=["user", "livemode", "kind", "term"],
                name="contacts_term_prefix_idx",
                opclasses=["", "", "", "varchar_pattern_ops"],
                include=["sort_name", "contact"],
            ),
            models.Index(
                fields=["contact", "kind", "term"],
                name="contacts_term_contact_idx",
                opclasses=["", "", "varchar_pattern_ops"],
            ),
        ]

    def __str__(self):
        return f"{self.kind}:{self.term}"
