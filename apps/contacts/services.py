"""Writes of the address book. Contacts are written by the telephony core, the admin and seed data;
every write goes through here so that the search terms and the sort key follow the contact."""

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from apps.core.phones import country_of, e164, parse_e164

from . import search
from .models import MAX_PHONE_NUMBERS, Contact, ContactPhoneNumber, ContactSearchTerm, PhoneLabel
from .selectors import attach_phone_numbers


@dataclass(frozen=True)
class PhoneInput:
    number: str
    label: str = PhoneLabel.MOBILE


@dataclass(frozen=True)
class ContactInput:
    name: str
    phone_numbers: Sequence[PhoneInput] = ()
    created: object = None  # an aware datetime; now when None


def contact_name_clean(name) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ValidationError("A contact needs a name.", "name")
    name = " ".join(name.split())
    if len(name) > 200:
        raise ValidationError("A contact's name is at most 200 characters.", "name")
    return name


def phone_number_build(*, number: str, label: str, position: int) -> ContactPhoneNumber:
    """An unsaved phone number, checked (E.164, known label) and placed in its country."""
    if label not in PhoneLabel.values:
        raise ValidationError(f"label must be one of {', '.join(PhoneLabel.values)}.", "label")
    parsed = parse_e164(number)
    return ContactPhoneNumber(number=e164(parsed), label=label, country=country_of(parsed), position=position)


def _terms(contact: Contact, numbers: Iterable[str]) -> list[ContactSearchTerm]:
    def term(kind, value):
        return ContactSearchTerm(
            contact_id=contact.id,
            user_id=contact.user_id,
            livemode=contact.livemode,
            kind=kind,
            term=value,
            sort_name=contact.sort_name,
        )

    terms = [term(ContactSearchTerm.NAME, word) for word in search.name_words(contact.name)]
    digits = dict.fromkeys(suffix for number in numbers for suffix in search.digit_terms(number))
    return terms + [term(ContactSearchTerm.DIGITS, suffix) for suffix in digits]


def contacts_create(
    *, user, livemode: bool, contacts: Sequence[ContactInput], ids: Iterator[str] | None = None
) -> list[Contact]:
    """Many contacts in a handful of statements (seed data, imports); all or none are written.

    ``ids`` gives the contacts' ids (seed data that reseeds alike); new random ids otherwise.
    The returned contacts carry their phone numbers prefetched (``contact.phone_numbers.all()``
    costs no query).
    """
    now = timezone.now()
    built: list[tuple[Contact, list[ContactPhoneNumber]]] = []
    for given in contacts:
        name = contact_name_clean(given.name)
        if len(given.phone_numbers) > MAX_PHONE_NUMBERS:
            raise ValidationError(f"A contact has at most {MAX_PHONE_NUMBERS} phone numbers.", "phone_numbers")
        contact = Contact(
            user=user, livemode=livemode, name=name, sort_name=search.sort_key(name), created=given.created or now
        )
        if ids is not None:
            contact.id = next(ids)
        phones = [
            phone_number_build(number=phone.number, label=phone.label, position=position)
            for position, phone in enumerate(given.phone_numbers)
        ]
        built.append((contact, phones))
    with transaction.atomic():
        Contact.objects.bulk_create([contact for contact, _ in built], batch_size=1000)
        phones, terms = [], []
        for contact, contact_phones in built:
            for phone in contact_phones:
                phone.contact = contact
            phones += contact_phones
            terms += _terms(contact, [phone.number for phone in contact_phones])
        ContactPhoneNumber.objects.bulk_create(phones, batch_size=1000)
        ContactSearchTerm.objects.bulk_create(terms, batch_size=2000)
    for contact, contact_phones in built:
        attach_phone_numbers(contact, contact_phones)
    return [contact for contact, _ in built]


def contact_create(
    *, user, livemode: bool, name: str, phone_numbers: Sequence[PhoneInput] = (), created=None
) -> Contact:
    (contact,) = contacts_create(
        user=user, livemode=livemode, contacts=[ContactInput(name=name, phone_numbers=phone_numbers, created=created)]
    )
    return contact


def contact_reindex(*, contact: Contact) -> None:
    """Derive the sort key, the numbers' countries and the search terms again from the stored
    contact (after the admin edited the name or the numbers)."""
    with transaction.atomic():
        contact.sort_name = search.sort_key(contact.name)
        Contact.objects.filter(pk=contact.pk).update(sort_name=contact.sort_name)
        # From the table, not a prefetched copy: the numbers were just saved.
        numbers = list(ContactPhoneNumber.objects.filter(contact_id=contact.pk))
        for phone in numbers:
            country = country_of(parse_e164(phone.number))
            if phone.country != country:
                phone.country = country
                phone.save(update_fields=["country"])
        ContactSearchTerm.objects.filter(contact=contact).delete()
        ContactSearchTerm.objects.bulk_create(_terms(contact, [phone.number for phone in numbers]))


def contacts_delete_all(*, user, livemode: bool) -> int:
    """Every contact of the account in that mode (seed data replaces them)."""
    ContactSearchTerm.objects.filter(user=user, livemode=livemode).delete()
    deleted, _ = Contact.objects.filter(user=user, livemode=livemode).delete()
    return deleted
