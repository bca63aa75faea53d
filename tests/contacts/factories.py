"""Contacts for tests, written through the service so that search terms and sort keys always follow."""

from datetime import datetime, timedelta

from django.utils import timezone

from apps.contacts.models import Contact
from apps.contacts.services import ContactInput, PhoneInput, contact_create, contacts_create


def make_contact(user, name="Ana López", numbers=(("+34612345678", "mobile"),), *, livemode=True, created=None):
    return contact_create(
        user=user,
        livemode=livemode,
        name=name,
        phone_numbers=[PhoneInput(number=number, label=label) for number, label in numbers],
        created=created,
    )


def make_contacts(user, names, *, livemode=True, start: datetime | None = None) -> list[Contact]:
    """One contact per name, a second apart, each with one made-up US number (+1 202 555 01NN)."""
    start = start or timezone.now() - timedelta(days=1)
    return contacts_create(
        user=user,
        livemode=livemode,
        contacts=[
            ContactInput(
                name=name,
                phone_numbers=[PhoneInput(number=f"+1202555{n:04d}", label="work")],
                created=start + timedelta(seconds=n),
            )
            for n, name in enumerate(names)
        ],
    )
